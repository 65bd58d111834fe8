//! A [`SessionStore`] for Genie sessions on SQLite: each session's model under its id in one database file,
//! and a lock per session that holds across every process opening that file.
//!
//! Why SQLite: several worker processes must share one store, and SQLite is built for that — processes open
//! the same file and its own file locking keeps their transactions apart (redb, the other embedded store
//! considered, takes an exclusive lock on its file, so a second process cannot open it at all). It is built
//! from the bundled sources, so no system library needs to match.
//!
//! The per-session lock is a row of its own (`locks`: the session, a holder token, an expiry), taken and
//! released in short transactions, so one conversation's turn never blocks another's, and a holder that dies
//! loses its lock when the expiry passes. Every write checks, in its transaction, that the writer still holds
//! the lock, so a holder that lost it (it stalled past the expiry and another took the lock) cannot overwrite
//! what the next holder wrote.
//!
//! ```
//! # fsmc_runtime::fsm!(r#"
//! #     machine Echo: genie {
//! #         event say, advance, bye;
//! #         start default state Listen: user { template "tests/templates/listen.jinja2"; }
//! #         state Shout: invoker { template "tests/templates/shout.jinja2"; runs shout; }
//! #         final state Gone: user { template "tests/templates/listen.jinja2"; }
//! #         (Listen, say) -> Shout do count;
//! #         (Shout, advance) -> Listen;
//! #         (Listen, bye) -> Gone;
//! #     }
//! # "#);
//! # #[derive(Clone, Default, serde::Serialize, serde::Deserialize)]
//! # struct Tally { says: u32 }
//! # impl echo::Hooks for Tally {
//! #     fn count(&mut self, _: &echo::Transition<'_>) { self.says += 1; }
//! # }
//! # struct Upper;
//! # impl fsmc_runtime::genie::Invoker<echo::Work> for Upper {
//! #     fn run(&self, call: fsmc_runtime::genie::TaskCall<echo::Work>) -> fsmc_runtime::genie::TaskFuture {
//! #         Box::pin(async move { Ok(call.actor_input.to_uppercase()) })
//! #     }
//! # }
//! use std::time::Duration;
//! use fsmc_genie_store::SqliteStore;
//! use fsmc_runtime::genie::{Flow, Worker};
//!
//! # let dir = fsmc_testkit::scratch("genie-store-doc");
//! # let path = dir.path().join("sessions.sqlite");
//! let runtime = tokio::runtime::Runtime::new().unwrap();
//! runtime.block_on(async {
//!     let flow = Flow::<echo::State>::new(Upper).unwrap();
//!     // Every worker process opens the same file.
//!     let worker = Worker::new(&flow, SqliteStore::open(&path).unwrap());
//!     worker.start("ada", Tally::default()).unwrap();
//!     let r = worker.send("ada", "say", "hello").unwrap();
//!     assert_eq!(r.next_actions, ["poll"]);
//!     let r = worker.idle("ada", Duration::from_millis(5)).await.unwrap();
//!     assert_eq!(r.output.as_deref(), Some("HELLO"));
//!     assert_eq!(worker.snapshot("ada").unwrap().context().says, 1);
//! });
//! ```

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use fsmc_runtime_core::genie::{SessionStore, StoreError, StoreLock};
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

/// Sessions in one SQLite file, shared by every process that opens it. Cheap to clone: clones share one
/// connection.
#[derive(Clone)]
pub struct SqliteStore {
    db: Arc<Mutex<Connection>>,
    hold: Duration,
}

fn store_error(e: rusqlite::Error) -> StoreError {
    StoreError::new(format!("SQLite: {e}"))
}

/// Milliseconds since the Unix epoch: when locks expire. Processes on one machine share the clock.
fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// A token no other lock holder has: this process, the time, and a count.
fn token() -> String {
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let n = COUNT.fetch_add(1, Ordering::Relaxed);
    format!("{}-{}-{n}", std::process::id(), now_ms())
}

/// A connection whose holder panicked is still usable: every change is one transaction, rolled back if it did
/// not commit.
fn connection(db: &Mutex<Connection>) -> MutexGuard<'_, Connection> {
    db.lock().unwrap_or_else(PoisonError::into_inner)
}

impl SqliteStore {
    /// Opens (or creates) the store at `path`. A lock whose holder dies expires after thirty seconds (see
    /// [`SqliteStore::hold`]).
    pub fn open(path: impl AsRef<Path>) -> Result<Self, StoreError> {
        let db = Connection::open(path).map_err(store_error)?;
        // Write-ahead logging lets readers go on while another process writes; the busy timeout makes a
        // transaction wait for another process's, rather than fail at once.
        db.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))
            .map_err(store_error)?;
        db.busy_timeout(Duration::from_secs(10))
            .map_err(store_error)?;
        db.execute_batch(
            "CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, value BLOB NOT NULL);
             CREATE TABLE IF NOT EXISTS locks (id TEXT PRIMARY KEY, holder TEXT NOT NULL, expires INTEGER NOT NULL);",
        )
        .map_err(store_error)?;
        Ok(Self {
            db: Arc::new(Mutex::new(db)),
            hold: Duration::from_secs(30),
        })
    }

    /// How long a lock holds without its holder writing: after a holder dies, the time before another can take
    /// the lock. Longer than any one request takes; every write extends it.
    pub fn hold(mut self, hold: Duration) -> Self {
        self.hold = hold;
        self
    }

    /// Takes `id`'s lock for `holder` if it is free or expired; true if it did.
    fn try_lock(&self, id: &str, holder: &str) -> Result<bool, StoreError> {
        let mut db = connection(&self.db);
        let tx = db
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(store_error)?;
        let now = now_ms();
        let expires: Option<i64> = tx
            .query_row("SELECT expires FROM locks WHERE id = ?1", [id], |row| {
                row.get(0)
            })
            .optional()
            .map_err(store_error)?;
        if expires.is_some_and(|e| e > now) {
            return Ok(false);
        }
        tx.execute(
            "INSERT OR REPLACE INTO locks (id, holder, expires) VALUES (?1, ?2, ?3)",
            params![id, holder, now.saturating_add(millis(self.hold))],
        )
        .map_err(store_error)?;
        tx.commit().map_err(store_error)?;
        Ok(true)
    }
}

impl SessionStore for SqliteStore {
    /// Takes the lock, trying again with a growing pause (a millisecond, up to twenty) until `wait` has passed.
    /// It blocks the calling thread meanwhile, as every SQLite call does.
    fn lock(&self, id: &str, wait: Duration) -> Result<Box<dyn StoreLock>, StoreError> {
        let holder = token();
        let deadline = Instant::now() + wait;
        let mut pause = Duration::from_millis(1);
        loop {
            if self.try_lock(id, &holder)? {
                return Ok(Box::new(SqliteLock {
                    store: self.clone(),
                    id: id.to_owned(),
                    holder,
                }));
            }
            if Instant::now() >= deadline {
                return Err(StoreError::new(format!(
                    "session `{id}` stayed locked for {} ms",
                    wait.as_millis()
                )));
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(20));
        }
    }
}

/// A session's lock, held; released when dropped.
struct SqliteLock {
    store: SqliteStore,
    id: String,
    holder: String,
}

impl StoreLock for SqliteLock {
    fn load(&mut self) -> Result<Option<Vec<u8>>, StoreError> {
        connection(&self.store.db)
            .query_row(
                "SELECT value FROM sessions WHERE id = ?1",
                [&self.id],
                |row| row.get(0),
            )
            .optional()
            .map_err(store_error)
    }

    fn save(&mut self, value: &[u8]) -> Result<(), StoreError> {
        let mut db = connection(&self.store.db);
        let tx = db
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(store_error)?;
        let now = now_ms();
        // Fencing: the write and the check that this holder still has the lock are one transaction.
        let held = tx
            .execute(
                "UPDATE locks SET expires = ?3 WHERE id = ?1 AND holder = ?2 AND expires > ?4",
                params![
                    self.id,
                    self.holder,
                    now.saturating_add(millis(self.store.hold)),
                    now
                ],
            )
            .map_err(store_error)?;
        if held == 0 {
            return Err(StoreError::new(format!(
                "the lock on session `{}` was lost before the write",
                self.id
            )));
        }
        tx.execute(
            "INSERT OR REPLACE INTO sessions (id, value) VALUES (?1, ?2)",
            params![self.id, value],
        )
        .map_err(store_error)?;
        tx.commit().map_err(store_error)
    }
}

impl Drop for SqliteLock {
    fn drop(&mut self) {
        // A release that fails leaves the row to expire: the lock is then free after the hold time.
        let _ = connection(&self.store.db).execute(
            "DELETE FROM locks WHERE id = ?1 AND holder = ?2",
            params![self.id, self.holder],
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHORT: Duration = Duration::from_millis(30);

    /// Two stores on one file in a scratch directory (kept until the test ends): what two processes have.
    fn stores(name: &str) -> (tempfile::TempDir, SqliteStore, SqliteStore) {
        let dir = fsmc_testkit::scratch(name);
        let path = dir.path().join("sessions.sqlite");
        let a = SqliteStore::open(&path).unwrap();
        let b = SqliteStore::open(&path).unwrap();
        (dir, a, b)
    }

    #[test]
    fn a_lock_excludes_other_holders_until_it_is_dropped() {
        let (_dir, a, b) = stores("genie-store-exclusion");
        let mut held = a.lock("s", SHORT).unwrap();
        assert_eq!(held.load().unwrap(), None);
        held.save(b"one").unwrap();
        let err = b.lock("s", SHORT).err().unwrap();
        assert_eq!(err.to_string(), "session `s` stayed locked for 30 ms");
        // Another session is not held up.
        b.lock("t", SHORT).unwrap();
        drop(held);
        let mut next = b.lock("s", SHORT).unwrap();
        assert_eq!(next.load().unwrap().as_deref(), Some(&b"one"[..]));
    }

    #[test]
    fn a_lock_whose_holder_vanished_expires_and_its_late_write_is_refused() {
        let (_dir, a, b) = stores("genie-store-expiry");
        let a = a.hold(SHORT);
        let mut stalled = a.lock("s", SHORT).unwrap();
        std::thread::sleep(SHORT * 2);
        let mut next = b.lock("s", SHORT).unwrap();
        next.save(b"second").unwrap();
        let err = stalled.save(b"first").unwrap_err();
        assert_eq!(
            err.to_string(),
            "the lock on session `s` was lost before the write"
        );
        // The stalled holder's release does not free the new holder's lock.
        drop(stalled);
        assert!(b.lock("s", SHORT).is_err());
        assert_eq!(next.load().unwrap().as_deref(), Some(&b"second"[..]));
    }
}
