//! Two OS processes serve one conversation kept in one SQLite file, as two Genie Flow workers do: each sends its
//! turns while the other's invoker work runs (its `say` is refused as busy until the work is done, then sent),
//! and each turn's work runs in the process that started it. At the end every turn is in the dialogue exactly
//! once, with its invoker's answer right after it: none lost, none doubled. A third process then sends a turn
//! and dies while its work runs; the lease on that work runs out, and this process takes it over and finishes
//! the turn, once.
//!
//! The test starts copies of its own binary as the workers (`FSMC_GENIE_STORE_ROLE` says which); everything is
//! in a scratch directory, and a worker still running after its deadline is killed and the test fails.

use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use fsmc_genie_store::SqliteStore;
use fsmc_runtime::genie::{Actor, Flow, GenieError, Invoker, TaskCall, TaskFuture, Worker};

fsmc_runtime::fsm!(
    r#"
    machine Echo: genie {
        event say, advance, bye;
        start default state Listen: user { template "tests/templates/listen.jinja2"; }
        state Shout: invoker { template "tests/templates/shout.jinja2"; runs shout; }
        final state Gone: user { template "tests/templates/listen.jinja2"; }
        (Listen, say) -> Shout do count;
        (Shout, advance) -> Listen;
        (Listen, bye) -> Gone;
    }
"#
);

const SESSION: &str = "talk";
const TURNS: usize = 8;
const ROLE: &str = "FSMC_GENIE_STORE_ROLE";
const DB: &str = "FSMC_GENIE_STORE_DB";
const DEADLINE: Duration = Duration::from_secs(60);

/// The conversation's context: how many turns the machine took.
#[derive(Clone, Default, serde::Serialize, serde::Deserialize)]
struct Tally {
    says: u32,
}

impl echo::Hooks for Tally {
    fn count(&mut self, _: &echo::Transition<'_>) {
        self.says += 1;
    }
}

/// Shouts the input back after `latency`, standing in for a model call.
struct Shouter {
    latency: Duration,
}

impl Invoker<echo::Work> for Shouter {
    fn run(&self, call: TaskCall<echo::Work>) -> TaskFuture {
        let latency = self.latency;
        Box::pin(async move {
            tokio::time::sleep(latency).await;
            Ok(call.actor_input.to_uppercase())
        })
    }
}

fn worker(db: &Path, latency: Duration, lease: Duration) -> Worker<echo::State, Tally> {
    let flow = Flow::<echo::State>::new(Shouter { latency }).expect("the templates compile");
    // A lock whose holder died (the third process) is free again after two seconds.
    let store = SqliteStore::open(db)
        .expect("the store opens")
        .hold(Duration::from_secs(2));
    Worker::new(&flow, store).lease(lease)
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a Tokio runtime")
}

/// A worker process: sends `TURNS` turns named after its role, each once the conversation is back in `Listen`,
/// then waits until no work runs (its last turn's runs here) and exits.
fn serve(role: &str, db: &Path) {
    runtime().block_on(async {
        let worker = worker(db, Duration::from_millis(15), Duration::from_secs(10));
        let until = Instant::now() + DEADLINE;
        for i in 0..TURNS {
            let text = format!("{role}-{i}");
            loop {
                assert!(Instant::now() < until, "{role}: out of time");
                match worker.send(SESSION, "say", &text) {
                    Ok(_) => break,
                    // The other process's turn is being worked on: its `say` comes back once that is done.
                    Err(GenieError::Busy { .. }) => {
                        tokio::time::sleep(Duration::from_millis(2)).await
                    }
                    Err(e) => panic!("{role}: {e}"),
                }
            }
        }
        let idle = worker.idle(SESSION, Duration::from_millis(5)).await;
        idle.unwrap_or_else(|e| panic!("{role}: {e}"));
    });
}

/// A worker process that dies while its turn's work runs: the work is slow, and the process exits without
/// releasing anything.
fn die_mid_turn(db: &Path) {
    runtime().block_on(async {
        let worker = worker(db, Duration::from_secs(30), Duration::from_millis(500));
        worker
            .send(SESSION, "say", "lost-0")
            .expect("the turn starts");
        // Long enough for the work to start (its first step renders the prompt and starts the task).
        tokio::time::sleep(Duration::from_millis(200)).await;
        std::process::exit(0);
    });
}

/// A child process, killed if it is still running when dropped (the test failed or ran out of time).
struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

fn spawn(role: &str, db: &Path) -> Process {
    let exe = std::env::current_exe().expect("the test binary");
    let child = Command::new(exe)
        .env(ROLE, role)
        .env(DB, db)
        .spawn()
        .expect("a worker process starts");
    Process(child)
}

/// Waits for every process to exit, successfully, before the deadline.
fn wait(processes: &mut [Process]) {
    let until = Instant::now() + DEADLINE;
    for p in processes.iter_mut() {
        loop {
            match p.0.try_wait().expect("the worker's status") {
                Some(status) => {
                    assert!(status.success(), "a worker failed: {status}");
                    break;
                }
                None if Instant::now() > until => panic!("a worker ran out of time"),
                None => std::thread::sleep(Duration::from_millis(10)),
            }
        }
    }
}

/// The dialogue as (actor, text) pairs.
fn said(worker: &Worker<echo::State, Tally>) -> Vec<(Actor, String)> {
    let model = worker.snapshot(SESSION).expect("the session reads back");
    model
        .dialogue()
        .utterances()
        .iter()
        .map(|u| (u.actor, u.text.clone()))
        .collect()
}

fn two_workers_serve_one_conversation(db: &Path) {
    let here = worker(db, Duration::ZERO, Duration::from_secs(10));
    here.start(SESSION, Tally::default())
        .expect("the conversation starts");
    let mut workers = [spawn("a", db), spawn("b", db)];
    wait(&mut workers);

    let said = said(&here);
    assert_eq!(said[0], (Actor::Assistant, "Say something.".to_owned()));
    let turns = &said[1..];
    assert_eq!(turns.len(), 4 * TURNS, "{said:?}");
    // Each turn is the user's text and its shout, in that order, and each text appears once.
    let mut texts: Vec<&str> = Vec::new();
    for pair in turns.chunks(2) {
        let [(Actor::User, text), (Actor::Assistant, shout)] = pair else {
            panic!("not a turn: {pair:?}");
        };
        assert_eq!(*shout, text.to_uppercase());
        texts.push(text);
    }
    texts.sort_unstable();
    texts.dedup();
    assert_eq!(texts.len(), 2 * TURNS, "a turn was doubled: {said:?}");
    // Each process's turns are in the order it sent them.
    for role in ["a", "b"] {
        let mine: Vec<&str> = turns
            .iter()
            .filter(|(a, t)| *a == Actor::User && t.starts_with(role))
            .map(|(_, t)| t.as_str())
            .collect();
        let sent: Vec<String> = (0..TURNS).map(|i| format!("{role}-{i}")).collect();
        assert_eq!(mine, sent);
    }
    let model = here.snapshot(SESSION).expect("the session reads back");
    assert_eq!(model.context().says as usize, 2 * TURNS);
    assert!(model.failures().is_empty());
}

fn a_dead_workers_turn_is_taken_over(runtime: &tokio::runtime::Runtime, db: &Path) {
    let here = worker(db, Duration::ZERO, Duration::from_millis(500));
    let before = said(&here).len();
    let mut dying = [spawn("die", db)];
    wait(&mut dying);
    runtime.block_on(async {
        // The work is in flight and its worker gone; once its lease runs out, a poll here takes it over.
        let idle = tokio::time::timeout(DEADLINE, here.idle(SESSION, Duration::from_millis(20)));
        let r = idle
            .await
            .expect("taken over in time")
            .expect("the store answers");
        assert_eq!(r.output.as_deref(), Some("LOST-0"));
    });
    let said = said(&here);
    assert_eq!(
        &said[before..],
        [
            (Actor::User, "lost-0".to_owned()),
            (Actor::Assistant, "LOST-0".to_owned())
        ]
    );
}

fn main() {
    if let (Ok(role), Some(db)) = (std::env::var(ROLE), std::env::var_os(DB)) {
        match role.as_str() {
            "die" => die_mid_turn(Path::new(&db)),
            _ => serve(&role, Path::new(&db)),
        }
        return;
    }
    let dir = fsmc_testkit::scratch("genie-store-two-processes");
    let db = dir.path().join("sessions.sqlite");
    // Flows run their work on the runtime they are made in.
    let runtime = runtime();
    let _inside = runtime.enter();
    two_workers_serve_one_conversation(&db);
    println!("test two_workers_serve_one_conversation ... ok");
    a_dead_workers_turn_is_taken_over(&runtime, &db);
    println!("test a_dead_workers_turn_is_taken_over ... ok");
}
