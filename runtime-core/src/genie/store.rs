//! Sessions kept in a shared store, as Genie Flow keeps them: several workers (threads, processes, machines
//! sharing the store) serve one conversation, each request taking the session's lock, reading the model,
//! applying the request and writing the model back before the lock is released.
//!
//! A [`SessionStore`] is the store and its locks (the `fsmc-genie-store` package has one on SQLite); a
//! [`Worker`] serves requests on it. The work an invoker state starts runs on the worker that started it,
//! which records each finished task under the lock and renews its *lease* on the work while it runs; if the
//! worker dies, its lease runs out and the next worker that touches the session takes the work over and runs
//! what did not finish (a task in flight when its worker died runs again; its output is recorded once).

use std::fmt::{self, Display, Formatter};
use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::machine::{GenieError, GenieMachine, GenieSpec};
use super::model::{Model, Response};
use super::run::{self, Home};
use super::session::Flow;
use super::turn::{self, FlowInner};

/// Why a store could not do what it was asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreError {
    message: String,
}

impl StoreError {
    /// A failure explained by `message`.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }
}

impl Display for StoreError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for StoreError {}

impl From<StoreError> for GenieError {
    fn from(e: StoreError) -> Self {
        GenieError::Store(e.message)
    }
}

/// A store of sessions, each a value of bytes under an id, with a lock per session that holds across every
/// worker sharing the store (other threads, other processes).
pub trait SessionStore: Send + Sync + 'static {
    /// Takes session `id`'s lock, waiting at most `wait` for whoever holds it. The lock holds until the
    /// returned guard is dropped; a holder that dies without dropping it loses it after a time the store
    /// decides, so one crashed worker cannot stop a conversation.
    fn lock(&self, id: &str, wait: Duration) -> Result<Box<dyn StoreLock>, StoreError>;
}

/// A session's lock, held: what it guards can be read and written.
pub trait StoreLock: Send {
    /// The session's value, or `None` if there is no such session yet.
    fn load(&mut self) -> Result<Option<Vec<u8>>, StoreError>;

    /// Writes the session's value. Fails, writing nothing, if the lock was lost meanwhile (it ran out and
    /// another worker took it), so a slow holder cannot overwrite what the next one wrote.
    fn save(&mut self, value: &[u8]) -> Result<(), StoreError>;
}

/// Serves the sessions of one machine kept in a [`SessionStore`]: every request takes the session's lock,
/// reads its model (checked against the machine, as [`Flow::resume`] checks a snapshot), applies the request
/// and writes the model back. Cheap to clone; one per process is enough.
pub struct Worker<S: GenieSpec, C> {
    flow: Flow<S>,
    store: Arc<dyn SessionStore>,
    owner: Arc<str>,
    wait: Duration,
    lease: Duration,
    _context: PhantomData<fn() -> C>,
}

impl<S: GenieSpec, C> Clone for Worker<S, C> {
    fn clone(&self) -> Self {
        Self {
            flow: self.flow.clone(),
            store: Arc::clone(&self.store),
            owner: Arc::clone(&self.owner),
            wait: self.wait,
            lease: self.lease,
            _context: PhantomData,
        }
    }
}

/// A name no other worker has: the process, the time it started, and a count.
fn owner_name() -> String {
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let n = COUNT.fetch_add(1, Ordering::Relaxed);
    format!("{}-{}-{n}", std::process::id(), run::now_ms())
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl<S, C> Worker<S, C>
where
    S: GenieMachine<C> + Serialize + DeserializeOwned,
    C: Clone + Serialize + DeserializeOwned + Send + 'static,
{
    /// A worker serving `flow`'s sessions kept in `store`: it waits up to five seconds for a session's lock,
    /// and holds the work it runs on a lease of thirty seconds that it renews while the work runs (set with
    /// [`Worker::wait`] and [`Worker::lease`]). Its work's leases need the Tokio runtime's timer.
    pub fn new(flow: &Flow<S>, store: impl SessionStore) -> Self {
        Self {
            flow: flow.clone(),
            store: Arc::new(store),
            owner: owner_name().into(),
            wait: Duration::from_secs(5),
            lease: Duration::from_secs(30),
            _context: PhantomData,
        }
    }

    /// How long a request waits for the session's lock before it fails.
    pub fn wait(mut self, wait: Duration) -> Self {
        self.wait = wait;
        self
    }

    /// How long a claim on an invoker's work holds without renewal: after a worker dies, the time before
    /// another takes its work over. It is renewed every third of it while the work runs.
    pub fn lease(mut self, lease: Duration) -> Self {
        self.lease = lease.max(Duration::from_millis(3));
        self
    }

    /// Starts conversation `id` with `context` (see [`Flow::start`]); refused if the store has it already.
    pub fn start(&self, id: &str, context: C) -> Result<Response, GenieError> {
        let model = self.flow.open(context)?;
        self.apply(id, Some(model), |_, _| Ok(true))
    }

    /// Sends `event` with `input` to conversation `id`, as [`Session::send`](super::Session::send) does.
    pub fn send(&self, id: &str, event: &str, input: &str) -> Result<Response, GenieError> {
        self.apply(id, None, |flow, model| {
            turn::send(flow, model, event, input)
        })
    }

    /// What `send(id, "poll", "")` answers. Work in flight whose worker's lease ran out is taken over here.
    pub fn poll(&self, id: &str) -> Result<Response, GenieError> {
        self.apply(id, None, |_, _| Ok(false))
    }

    /// Runs conversation `id`'s failed work again (see [`Session::retry`](super::Session::retry)).
    pub fn retry(&self, id: &str) -> Result<Response, GenieError> {
        self.apply(id, None, |_, model| turn::retry(model).map(|()| true))
    }

    /// Gives conversation `id`'s failed work up (see [`Session::abandon`](super::Session::abandon)).
    pub fn abandon(&self, id: &str) -> Result<Response, GenieError> {
        self.apply(id, None, |flow, model| {
            turn::abandon(flow, model).map(|()| true)
        })
    }

    /// A copy of everything conversation `id` knows.
    pub fn snapshot(&self, id: &str) -> Result<Model<S, C>, GenieError> {
        let mut lock = self.store.lock(id, self.wait)?;
        load(lock.as_mut())?.ok_or_else(|| missing(id))
    }

    /// Polls conversation `id` every `every` until no work runs (done, or failed and waiting), and returns
    /// that poll. Another worker may be running the work: only the store tells when it is done.
    pub async fn idle(&self, id: &str, every: Duration) -> Result<Response, GenieError> {
        loop {
            let now = self.poll(id)?;
            if now.progress.is_none() {
                return Ok(now);
            }
            tokio::time::sleep(every).await;
        }
    }

    /// One request on conversation `id` under its lock: the model read (or `create`d, for a new one), `op`
    /// applied, work nobody runs claimed for this worker, the model written back if it changed, the lock
    /// released, and then the claimed work started here.
    fn apply(
        &self,
        id: &str,
        create: Option<Model<S, C>>,
        op: impl FnOnce(&FlowInner<S::Work>, &mut Model<S, C>) -> Result<bool, GenieError>,
    ) -> Result<Response, GenieError> {
        let mut lock = self.store.lock(id, self.wait)?;
        let creating = create.is_some();
        let mut model = match (load(lock.as_mut())?, create) {
            (Some(model), None) => model,
            (None, Some(model)) => model,
            (Some(_), Some(_)) => {
                return Err(GenieError::Store(format!("session `{id}` exists already")));
            }
            (None, None) => return Err(missing(id)),
        };
        let changed = op(&self.flow.inner, &mut model)?;
        let now = run::now_ms();
        let until = now.saturating_add(millis(self.lease));
        let claimed = turn::claim(&mut model, &self.owner, now, until);
        if changed || creating || claimed.is_some() {
            lock.save(&encode(&model)?)?;
        }
        drop(lock);
        if let Some(run) = claimed {
            Arc::new(self.home(id)).spawn(run);
        }
        Ok(model.response())
    }

    fn home(&self, id: &str) -> Stored<S, C> {
        Stored {
            worker: self.clone(),
            id: id.to_owned(),
        }
    }
}

fn missing(id: &str) -> GenieError {
    GenieError::Store(format!("there is no session `{id}`"))
}

fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>, GenieError> {
    serde_json::to_vec(value)
        .map_err(|e| GenieError::Store(format!("cannot encode the session: {e}")))
}

/// The model under `lock`, checked against the machine.
fn load<S, C>(lock: &mut dyn StoreLock) -> Result<Option<Model<S, C>>, GenieError>
where
    S: GenieSpec + DeserializeOwned,
    C: DeserializeOwned,
{
    let Some(bytes) = lock.load()? else {
        return Ok(None);
    };
    let model: Model<S, C> = serde_json::from_slice(&bytes)
        .map_err(|e| GenieError::Snapshot(format!("the stored session does not read back: {e}")))?;
    model.check()?;
    Ok(Some(model))
}

/// A session in the store, as the run of its work reaches it: each step takes the lock, reads, steps and
/// writes back.
struct Stored<S: GenieSpec, C> {
    worker: Worker<S, C>,
    id: String,
}

impl<S, C> Home<S, C> for Stored<S, C>
where
    S: GenieMachine<C> + Serialize + DeserializeOwned,
    C: Clone + Serialize + DeserializeOwned + Send + 'static,
{
    fn with(&self, step: &mut dyn FnMut(&mut Model<S, C>) -> bool) -> Result<(), GenieError> {
        let mut lock = self.worker.store.lock(&self.id, self.worker.wait)?;
        let mut model = load(lock.as_mut())?.ok_or_else(|| missing(&self.id))?;
        if step(&mut model) {
            lock.save(&encode(&model)?)?;
        }
        Ok(())
    }

    fn lease(&self) -> (&str, u64) {
        let until = run::now_ms().saturating_add(millis(self.worker.lease));
        (&self.worker.owner, until)
    }

    fn heartbeat(&self) -> Option<Duration> {
        self.worker.lease.checked_div(3)
    }

    fn spawn(self: Arc<Self>, id: u64) {
        let flow = Arc::clone(&self.worker.flow.inner);
        let handle = flow.handle.clone();
        handle.spawn(run::run(flow, self as Arc<dyn Home<S, C>>, id));
    }
}
