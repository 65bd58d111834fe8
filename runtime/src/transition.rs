//! Transition errors and the [`Machine`] trait that generated `State` enums implement.
//!
//! Generated dispatch is a plain `match` on `(state, event)`; the fallback arm returns an
//! [`InvalidTransition`] that carries the state's accepted events, so the error message can tell
//! the caller what it could have sent instead of just "no".

use std::error::Error;
use std::fmt::{self, Display, Formatter};

/// An event was sent to a state that has no transition for it.
///
/// `accepted` is the state's full list of accepted events in spec order, so the message names them;
/// it is empty for a final state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct InvalidTransition<S: 'static, E: 'static> {
    /// The state the machine was in (it is still in it: a failed transition changes nothing).
    pub state: S,
    /// The event that was rejected.
    pub event: E,
    /// The events `state` does accept.
    pub accepted: &'static [E],
    /// The state has transitions on `event`, but each is guarded and no guard held: the event was refused,
    /// not unknown here.
    pub guarded: bool,
}

impl<M: Machine> InvalidTransition<M, M::Event> {
    /// The error for `event` sent to `state`, with the accepted events taken from the machine.
    pub fn for_state(state: M, event: M::Event) -> Self {
        Self {
            state,
            event,
            accepted: state.accepted(),
            guarded: false,
        }
    }
}

impl<S: Display, E: Display> Display for InvalidTransition<S, E> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if self.guarded {
            return write!(
                f,
                "event `{}` was refused in state `{}`: no guard of its transitions held",
                self.event, self.state
            );
        }
        write!(
            f,
            "event `{}` is not accepted in state `{}`; ",
            self.event, self.state
        )?;
        if self.accepted.is_empty() {
            f.write_str("it accepts no events")
        } else {
            f.write_str("it accepts: ")?;
            write_list(f, self.accepted)
        }
    }
}

impl<S: Display + fmt::Debug, E: Display + fmt::Debug> Error for InvalidTransition<S, E> {}

/// A handler picked a next state that is not among the states it may move to.
///
/// Used by machines whose handler chooses the target directly instead of sending an event
/// (Phantom stages): the spec lists the allowed next states, and leaving that list is a run-time
/// error rather than a silent jump.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct InvalidTarget<S: 'static> {
    /// The state the handler ran in.
    pub from: S,
    /// The state the handler asked to move to.
    pub to: S,
    /// The states `from` may move to.
    pub allowed: &'static [S],
}

impl<S: PartialEq + Copy> InvalidTarget<S> {
    /// Accepts `to` if it is in `allowed`, returning it; otherwise the error naming all three.
    pub fn check(from: S, to: S, allowed: &'static [S]) -> Result<S, Self> {
        if allowed.contains(&to) {
            Ok(to)
        } else {
            Err(Self { from, to, allowed })
        }
    }
}

impl<S: Display> Display for InvalidTarget<S> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "state `{}` cannot move to `{}`; ", self.from, self.to)?;
        if self.allowed.is_empty() {
            f.write_str("it has no next states")
        } else {
            f.write_str("it may move to: ")?;
            write_list(f, self.allowed)
        }
    }
}

impl<S: Display + fmt::Debug> Error for InvalidTarget<S> {}

/// Writes `` `a`, `b`, `c` `` without allocating.
fn write_list<T: Display>(f: &mut Formatter<'_>, items: &[T]) -> fmt::Result {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "`{item}`")?;
    }
    Ok(())
}

/// The interface a generated `State` enum implements.
///
/// Generic helpers such as [`run`] work on any generated machine through it. It is not meant to be
/// used as a trait object: it has an associated constant and returns `Self`.
pub trait Machine: Copy + 'static {
    /// The machine's event enum.
    type Event: Copy + 'static;

    /// Every state, in spec order.
    const ALL: &'static [Self];

    /// The state reached from `self` on `event`, or an error naming the events `self` accepts.
    fn next(self, event: Self::Event) -> Result<Self, InvalidTransition<Self, Self::Event>>;

    /// Whether `self` is a final state (it accepts no events).
    fn is_final(self) -> bool;

    /// The events `self` accepts, in spec order; empty for a final state.
    fn accepted(self) -> &'static [Self::Event];

    /// The state's name exactly as written in the spec.
    fn name(self) -> &'static str;

    /// Whether `self` has a transition on `event`.
    fn accepts(self, event: Self::Event) -> bool
    where
        Self::Event: PartialEq,
    {
        self.accepted().contains(&event)
    }
}

/// Applies `events` in order from `start` and returns the state reached.
///
/// Stops at the first event the current state does not accept and returns that error; the states
/// before it are not rolled back because states are plain values and nothing was mutated.
pub fn run<M: Machine>(
    start: M,
    events: impl IntoIterator<Item = M::Event>,
) -> Result<M, InvalidTransition<M, M::Event>> {
    events.into_iter().try_fold(start, M::next)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-written stand-in for what the generator emits: a traffic light with a final state.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Light {
        Red,
        Green,
        Off,
    }

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Ev {
        Go,
        Stop,
        Shutdown,
    }

    impl Display for Light {
        fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
            f.write_str(self.name())
        }
    }

    impl Display for Ev {
        fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
            f.write_str(match self {
                Ev::Go => "GO",
                Ev::Stop => "STOP",
                Ev::Shutdown => "SHUTDOWN",
            })
        }
    }

    impl Machine for Light {
        type Event = Ev;
        const ALL: &'static [Self] = &[Light::Red, Light::Green, Light::Off];

        fn next(self, event: Ev) -> Result<Self, InvalidTransition<Self, Ev>> {
            match (self, event) {
                (Light::Red, Ev::Go) => Ok(Light::Green),
                (Light::Green, Ev::Stop) => Ok(Light::Red),
                (Light::Red | Light::Green, Ev::Shutdown) => Ok(Light::Off),
                _ => Err(InvalidTransition::for_state(self, event)),
            }
        }

        fn is_final(self) -> bool {
            self == Light::Off
        }

        fn accepted(self) -> &'static [Ev] {
            match self {
                Light::Red => &[Ev::Go, Ev::Shutdown],
                Light::Green => &[Ev::Stop, Ev::Shutdown],
                Light::Off => &[],
            }
        }

        fn name(self) -> &'static str {
            match self {
                Light::Red => "Red",
                Light::Green => "Green",
                Light::Off => "Off",
            }
        }
    }

    #[test]
    fn run_applies_events_in_order() {
        let end = run(Light::Red, [Ev::Go, Ev::Stop, Ev::Go]).unwrap();
        assert_eq!(end, Light::Green);
        assert_eq!(run(Light::Red, []).unwrap(), Light::Red);
    }

    #[test]
    fn run_stops_at_first_rejected_event() {
        let err = run(Light::Red, [Ev::Go, Ev::Go, Ev::Stop]).unwrap_err();
        assert_eq!(err.state, Light::Green);
        assert_eq!(err.event, Ev::Go);
        assert_eq!(err.accepted, &[Ev::Stop, Ev::Shutdown]);
    }

    #[test]
    fn invalid_transition_message_lists_accepted_events() {
        let err = Light::Red.next(Ev::Stop).unwrap_err();
        assert_eq!(
            err.to_string(),
            "event `STOP` is not accepted in state `Red`; it accepts: `GO`, `SHUTDOWN`"
        );
    }

    #[test]
    fn a_guard_refusal_says_so() {
        let err = InvalidTransition {
            state: Light::Red,
            event: Ev::Go,
            accepted: Light::Red.accepted(),
            guarded: true,
        };
        assert_eq!(
            err.to_string(),
            "event `GO` was refused in state `Red`: no guard of its transitions held"
        );
    }

    #[test]
    fn final_state_accepts_no_events() {
        let err = run(Light::Red, [Ev::Shutdown, Ev::Go]).unwrap_err();
        assert!(err.state.is_final());
        assert_eq!(
            err.to_string(),
            "event `GO` is not accepted in state `Off`; it accepts no events"
        );
        let as_error: &dyn Error = &err;
        assert!(as_error.source().is_none());
    }

    #[test]
    fn accepts_agrees_with_next() {
        for &state in Light::ALL {
            for ev in [Ev::Go, Ev::Stop, Ev::Shutdown] {
                assert_eq!(state.accepts(ev), state.next(ev).is_ok(), "{state} {ev}");
            }
        }
    }

    #[test]
    fn invalid_target_check_and_message() {
        const NEXT: &[Light] = &[Light::Green, Light::Off];
        assert_eq!(
            InvalidTarget::check(Light::Red, Light::Off, NEXT),
            Ok(Light::Off)
        );
        let err = InvalidTarget::check(Light::Red, Light::Red, NEXT).unwrap_err();
        assert_eq!(
            err.to_string(),
            "state `Red` cannot move to `Red`; it may move to: `Green`, `Off`"
        );
        let none = InvalidTarget::check(Light::Off, Light::Red, &[]).unwrap_err();
        assert_eq!(
            none.to_string(),
            "state `Off` cannot move to `Red`; it has no next states"
        );
    }
}
