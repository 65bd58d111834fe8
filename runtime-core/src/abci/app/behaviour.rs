//! Behaviours: the proactive code an agent runs in each round, asynchronous. A behaviour may wait on I/O across
//! several blocks while its replica goes on applying them; it may abstain (send nothing, and let the round's
//! timeout cover it) or fail; it is cancelled when its round ends; a panic in it is caught and reported.

use std::fmt::{self, Display, Formatter};
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll, Waker};

use super::context::Context;
use super::spec::AppSpec;

/// Why a behaviour sent nothing in its round. Any error converts into one (`?` in a behaviour abstains with
/// the error's message), so a behaviour whose price source fails says so instead of inventing a value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Abstain {
    reason: String,
}

impl Abstain {
    /// Abstains for `reason`.
    pub fn new(reason: impl Into<String>) -> Abstain {
        Abstain {
            reason: reason.into(),
        }
    }

    /// Why.
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

impl Display for Abstain {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason)
    }
}

// Not `std::error::Error` itself, so that every error can convert into it (as anyhow's error does).
impl<E: std::error::Error> From<E> for Abstain {
    fn from(e: E) -> Abstain {
        Abstain::new(e.to_string())
    }
}

/// A behaviour's work for one round: the encoded payload, or why there is none.
pub type Pending = Pin<Box<dyn Future<Output = Result<Vec<u8>, Abstain>> + Send + 'static>>;

/// How an app runs behaviours of type `B`: implemented by the generated `Spec` for every type implementing the
/// generated `Behaviour` trait.
pub trait Drive<B: ?Sized>: AppSpec {
    /// The work of `agent`'s behaviour for the round `ctx` is in, encoding the payload it returns; `None` in a
    /// state without a behaviour (a final one).
    #[doc(hidden)]
    fn act(agent: &Arc<B>, ctx: Context<Self>) -> Option<Pending>;
}

/// What became of a behaviour's work for one round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Acted {
    /// It returned a payload, which was submitted.
    Submitted {
        /// The round's number.
        round: u64,
    },
    /// It abstained or failed: nothing was sent.
    Abstained {
        /// The round's number.
        round: u64,
        /// Why.
        reason: String,
    },
    /// It panicked: nothing was sent, and the node goes on.
    Panicked {
        /// The round's number.
        round: u64,
        /// The panic's message.
        message: String,
    },
    /// Its round ended before it returned: it was dropped.
    Cancelled {
        /// The round's number.
        round: u64,
    },
}

/// The outcome of polling a behaviour's work once.
pub(crate) enum Polled {
    Ready(Result<Vec<u8>, Abstain>),
    Panicked(String),
    Pending,
}

/// Polls `work` once with `waker`, catching a panic.
pub(crate) fn poll(work: &mut Pending, waker: &Waker) -> Polled {
    let mut cx = TaskContext::from_waker(waker);
    match std::panic::catch_unwind(AssertUnwindSafe(|| work.as_mut().poll(&mut cx))) {
        Ok(Poll::Ready(result)) => Polled::Ready(result),
        Ok(Poll::Pending) => Polled::Pending,
        Err(panic) => Polled::Panicked(panic_message(panic.as_ref())),
    }
}

/// Polls `work` once without a waker: the result if it is ready at once. Simulations and tests use it for
/// behaviours that do no I/O.
pub fn now_or_never(mut work: Pending) -> Option<Result<Vec<u8>, Abstain>> {
    match poll(&mut work, Waker::noop()) {
        Polled::Ready(result) => Some(result),
        Polled::Panicked(message) => Some(Err(Abstain::new(format!("panicked: {message}")))),
        Polled::Pending => None,
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string())
}
