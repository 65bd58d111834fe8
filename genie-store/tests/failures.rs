//! Failed invoker work in a store, met by each state's policy as a session in memory meets it: under
//! `on_failure retry;` the failure waits in the store, every worker sees it with `retry` and `abandon` offered,
//! and any of them retries or abandons it; under `continue` and a failure event the worker whose work failed
//! goes on by itself, and the next response shows the failure with the next actions.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use fsmc_genie_store::SqliteStore;
use fsmc_runtime::genie::{
    ABANDON, Actor, Flow, GenieError, Invoker, RETRY, Response, TaskCall, TaskError, TaskFuture,
    Worker,
};

fsmc_runtime::fsm!(
    r#"
    machine Relay: genie {
        event say, ask, check, advance, gave_up;
        start default state Listen: user { template "tests/templates/listen.jinja2"; }
        state Shout: invoker { template "tests/templates/shout.jinja2"; runs shout; on_failure retry; }
        state Guess: invoker { template "tests/templates/shout.jinja2"; runs guess; }
        state Check: invoker { template "tests/templates/shout.jinja2"; runs check; on_failure = gave_up; }
        (Listen, say) -> Shout;
        (Listen, ask) -> Guess;
        (Listen, check) -> Check;
        (Shout, advance) -> Listen;
        (Guess, advance) -> Listen;
        (Check, advance) -> Listen;
        (Check, gave_up) -> Listen;
    }
"#
);

const SESSION: &str = "talk";

#[derive(Clone, Default, serde::Serialize, serde::Deserialize)]
struct Nothing {}

impl relay::Hooks for Nothing {}

/// Shouts the input back, failing while `failures` counts down (a model that times out, then answers).
struct Flaky {
    failures: Arc<AtomicU32>,
}

impl Invoker<relay::Work> for Flaky {
    fn run(&self, call: TaskCall<relay::Work>) -> TaskFuture {
        let failing = self
            .failures
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok();
        Box::pin(async move {
            tokio::time::sleep(Duration::from_millis(5)).await;
            match failing {
                true => Err(TaskError::new("the model timed out")),
                false => Ok(call.actor_input.to_uppercase()),
            }
        })
    }
}

/// A worker with its own flow and its own connection to the store at `db`, as another process has.
fn worker(db: &Path, failures: &Arc<AtomicU32>) -> Worker<relay::State, Nothing> {
    let invoker = Flaky {
        failures: Arc::clone(failures),
    };
    let flow = Flow::<relay::State>::new(invoker).expect("the templates compile");
    Worker::new(&flow, SqliteStore::open(db).expect("the store opens"))
}

async fn idle(worker: &Worker<relay::State, Nothing>) -> Response {
    let idle = worker.idle(SESSION, Duration::from_millis(5));
    tokio::time::timeout(Duration::from_secs(10), idle)
        .await
        .expect("the work ends in time")
        .expect("the store answers")
}

fn said(worker: &Worker<relay::State, Nothing>) -> Vec<(Actor, String)> {
    let model = worker.snapshot(SESSION).expect("the session reads back");
    let utterances = model.dialogue().utterances().iter();
    utterances.map(|u| (u.actor, u.text.clone())).collect()
}

const TIMED_OUT: &str = "task `shout` of `Shout` failed: the model timed out";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_work_waits_in_the_store_and_another_worker_retries_it() {
    let dir = fsmc_testkit::scratch("genie-store-retry");
    let db = dir.path().join("sessions.sqlite");
    let failures = Arc::new(AtomicU32::new(1));
    let (a, b) = (worker(&db, &failures), worker(&db, &failures));
    a.start(SESSION, Nothing {})
        .expect("the conversation starts");
    a.send(SESSION, "say", "hello").expect("the turn starts");

    // The failure waits in the store: the other worker sees it, with the way out offered.
    let r = idle(&a).await;
    assert_eq!(
        (r.state.as_str(), r.error.as_deref()),
        ("Shout", Some(TIMED_OUT))
    );
    assert_eq!(b.poll(SESSION).expect("the store answers"), r);
    assert_eq!(r.next_actions, [RETRY, ABANDON]);
    let err = b.send(SESSION, "say", "again").unwrap_err();
    assert!(matches!(err, GenieError::Failed(_)), "{err}");

    // The other worker retries it: the work runs there, and the turn ends once.
    let r = b.retry(SESSION).expect("the retry is taken");
    assert_eq!(r.next_actions, ["poll"]);
    let r = idle(&a).await;
    assert_eq!(
        (r.state.as_str(), r.output.as_deref()),
        ("Listen", Some("HELLO"))
    );
    assert_eq!(r.error, None);
    assert_eq!(
        said(&a)[1..],
        [
            (Actor::User, "hello".to_owned()),
            (Actor::Assistant, "HELLO".to_owned())
        ]
    );
    let model = a.snapshot(SESSION).expect("the session reads back");
    assert_eq!(model.failures().len(), 1);
    // Nothing waits any more: a second retry or an abandon is refused.
    assert_eq!(b.retry(SESSION), Err(GenieError::NothingFailed));
    assert_eq!(a.abandon(SESSION), Err(GenieError::NothingFailed));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn abandoned_work_goes_on_with_an_empty_input_and_the_failure_shows_until_the_next_event() {
    let dir = fsmc_testkit::scratch("genie-store-abandon");
    let db = dir.path().join("sessions.sqlite");
    let failures = Arc::new(AtomicU32::new(u32::MAX));
    let (a, b) = (worker(&db, &failures), worker(&db, &failures));
    a.start(SESSION, Nothing {})
        .expect("the conversation starts");
    a.send(SESSION, "say", "hello").expect("the turn starts");
    assert_eq!(idle(&a).await.next_actions, [RETRY, ABANDON]);

    let r = b.abandon(SESSION).expect("the abandon is taken");
    assert_eq!(r.state, "Listen");
    assert_eq!(r.output.as_deref(), Some("Say something."));
    assert_eq!(r.next_actions, ["say", "ask", "check"]);
    assert_eq!(r.error.as_deref(), Some(TIMED_OUT));
    assert_eq!(a.poll(SESSION).expect("the store answers"), r);
    failures.store(0, Ordering::SeqCst);
    a.send(SESSION, "say", "again")
        .expect("the next turn starts");
    let r = idle(&b).await;
    assert_eq!((r.output.as_deref(), r.error), (Some("AGAIN"), None));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn continue_and_a_failure_event_go_on_by_themselves() {
    let dir = fsmc_testkit::scratch("genie-store-go-on");
    let db = dir.path().join("sessions.sqlite");
    let failures = Arc::new(AtomicU32::new(u32::MAX));
    let a = worker(&db, &failures);
    a.start(SESSION, Nothing {})
        .expect("the conversation starts");

    // `Guess` has the default policy: its event is sent on with an empty input.
    a.send(SESSION, "ask", "what?").expect("the turn starts");
    let r = idle(&a).await;
    assert_eq!(
        (r.state.as_str(), r.output.as_deref()),
        ("Listen", Some("Say something."))
    );
    assert_eq!(
        r.error.as_deref(),
        Some("task `guess` of `Guess` failed: the model timed out")
    );
    assert_eq!(r.next_actions, ["say", "ask", "check"]);

    // `Check` sends `gave_up` with the failure as its input, which `Listen`'s template shows.
    a.send(SESSION, "check", "is it?").expect("the turn starts");
    let r = idle(&a).await;
    let failure = "task `check` of `Check` failed: the model timed out";
    assert_eq!(
        (r.state.as_str(), r.output.as_deref()),
        ("Listen", Some(failure))
    );
    assert_eq!(r.error.as_deref(), Some(failure));
    let model = a.snapshot(SESSION).expect("the session reads back");
    assert_eq!(model.failures().len(), 2);
}
