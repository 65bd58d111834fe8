//! Transition errors, the record every hook sees, and the [`Machine`] trait that generated `State` enums
//! implement.
//!
//! Every machine with events has two ways to move:
//!
//! * `next(event)`, the pure transition function: a table lookup, no hooks, no data. It answers only where the
//!   event alone decides the target; a `(state, event)` pair with guards is refused with
//!   [`Reason::NeedsGuards`], because only code that can ask the guards may take it.
//! * `fire(message, hooks)`, the transition with its hooks. It runs the groups of [`HookGroup::ORDER`]:
//!   validators, conditions (the spec's `if`/`unless` guards), before, exit, on (with the spec's `do` actions),
//!   the state update, enter and after. Every hook receives one [`Transition`]: the source, the event, the
//!   target, the message with its data, what the machine's profile adds, and the state the machine is in
//!   while that hook runs. Only validators and conditions can refuse, and they run before anything else, so
//!   a refused event changes nothing; once they have passed, the transition completes.
//!
//! The error of both names the state, the event and what the state accepts, so it can tell the caller what it
//! could have sent instead of just "no".
//!
//! # What a generated module holds
//!
//! For a machine with events, the module generated from `event Cfp(query: String) by buyer;`,
//! `(Open, Cfp) -> Called if wanted do log;` and the like holds, besides `State` and `Event` (the events'
//! names, `Copy`, without data):
//!
//! * `messages::Cfp { pub query: String }`: one struct per event that carries data, and
//!   `Message`: one variant per event, `Message::Cfp(messages::Cfp)` for an event with data and
//!   `Message::Accept` for one without, with `Message::event()` and `From<messages::Cfp>`. A machine whose
//!   events carry no data has `type Message = Event`, so `fire(&Event::Go, …)` works as it reads.
//! * `type Transition<'a>`: this module's [`Transition`], whose `profile` is `()` or what the profile adds
//!   (a Genie machine's [`Turn`](crate::genie::Turn): the actor's input and the dialogue).
//! * `trait Hooks`, implemented by the user's context object. Guards (`fn wanted(&self, t: &Transition<'_>)
//!   -> bool`) and actions (`fn log(&mut self, t: &Transition<'_>)`) named in the spec are required methods;
//!   every other hook has a default that does nothing, so only the hooks a user writes run:
//!   `validate(&self, t) -> Result<(), ValidationError>`; `before_transition`, `before_<event>`;
//!   `on_exit_state`, `on_exit_<state>` (states with outgoing transitions); `on_transition`, `on_<event>`;
//!   `on_enter_state`, `on_enter_<state>` (states some transition enters); `after_transition`,
//!   `after_<event>`. The event hooks of an event with data also receive its contents:
//!   `fn on_cfp(&mut self, t: &Transition<'_>, data: &messages::Cfp)`. Validators and conditions take
//!   `&self`: deciding cannot change the context, so a refusal leaves it as it was. A machine with no guard
//!   and no action also implements `Hooks` for `()`, for `fire` without a context.
//! * `State::next(Event)`, `State::fire(&Message, &mut impl Hooks)` and, for a profile that adds something,
//!   `State::fire_with(&Message, &profile, &mut impl Hooks)` (`fire` passes the profile's default); and
//!   `impl Machine for State`, whether the machine has guards or not.
//!
//! Inside a group the transition-wide hook runs first, then the one named after the event or state, then (in
//! the `On` group) the transition's `do` actions in the order written. The transitions of one `(state, event)`
//! pair are candidates in spec order: for each, validators run and then its conditions; the first whose
//! conditions hold is taken. A validator's error refuses the event ([`Reason::Rejected`]); when no candidate's
//! conditions hold, the event is refused with [`Reason::NoGuardHeld`].

// What generated code provides, and what it calls here (the contract with the code generator):
//
// * Every generated `State` implements `Machine`; `next` and `fire` build their refusals with
//   `InvalidTransition::for_state` (no transition on the event) and `InvalidTransition::new` (with a `Reason`:
//   `NeedsGuards`, `NoGuardHeld`, or `Rejected` carrying a validator's `ValidationError`).
// * `fire` fills in one `Transition` per hook; the module's `type Transition<'a>` names it with the machine's
//   `State`, `Event`, `Message` and profile.
// * A staged machine's `goto` checks a handler's choice with `InvalidTarget::check`.
// * `FromStr` and `TryFrom<&str>` of `State` and `Event` fail with `crate::UnknownName`, and
//   `__serde_by_name!` gives both serde's traits when the runtime's `serde` feature is on (see `names`).
//
// The constructors only generated code calls are hidden from the documentation; the types they build are the
// user's to match on and display.

use std::error::Error;
use std::fmt::{self, Display, Formatter};

/// Why an event did not move the machine.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Reason {
    /// The state has no transition on the event.
    NotAccepted,
    /// The state has transitions on the event, each guarded, and no guard held (`fire` asked them).
    NoGuardHeld,
    /// The event's transitions depend on guards, which `next` cannot ask: `fire` takes them.
    NeedsGuards,
    /// A validator rejected the message.
    Rejected(ValidationError),
}

/// An event was sent to a state that did not move on it; the state is unchanged.
///
/// `accepted` is the state's full list of accepted events in spec order, so the message names them;
/// it is empty for a final state.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct InvalidTransition<S: 'static, E: 'static> {
    /// The state the machine was in (it is still in it: a failed transition changes nothing).
    pub state: S,
    /// The event that was refused.
    pub event: E,
    /// The events `state` does accept.
    pub accepted: &'static [E],
    /// Why the event was refused.
    pub reason: Reason,
    /// With [`Reason::NoGuardHeld`], the guard that said no on each candidate transition, in spec order and as
    /// the spec writes it (`if paid`, `unless blocked`): the first of a candidate's guards that did not hold,
    /// since the later ones were not asked. Empty for every other reason.
    pub refused_by: Vec<&'static str>,
}

impl<M: Machine> InvalidTransition<M, M::Event> {
    /// The error for `event` sent to `state`, which has no transition on it.
    #[doc(hidden)]
    pub fn for_state(state: M, event: M::Event) -> Self {
        Self::new(state, event, Reason::NotAccepted)
    }

    /// The error for `event` sent to `state`, refused for `reason`.
    #[doc(hidden)]
    pub fn new(state: M, event: M::Event, reason: Reason) -> Self {
        Self {
            state,
            event,
            accepted: state.accepted(),
            reason,
            refused_by: Vec::new(),
        }
    }

    /// The error for `event` sent to `state`, whose candidate transitions' guards all said no; `refused_by`
    /// names the guard that said no on each.
    #[doc(hidden)]
    pub fn no_guard_held(state: M, event: M::Event, refused_by: Vec<&'static str>) -> Self {
        Self {
            refused_by,
            ..Self::new(state, event, Reason::NoGuardHeld)
        }
    }
}

impl<S, E> InvalidTransition<S, E> {
    /// Whether the state has transitions on the event that guards, or a validator, kept from firing (as
    /// opposed to having none at all).
    pub fn is_refused_by_hooks(&self) -> bool {
        !matches!(self.reason, Reason::NotAccepted)
    }
}

impl<S: Display, E: Display> Display for InvalidTransition<S, E> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let (event, state) = (&self.event, &self.state);
        match &self.reason {
            Reason::NoGuardHeld => {
                write!(
                    f,
                    "event `{event}` was refused in state `{state}`: no guard of its transitions held"
                )?;
                // The guards that said no, so the message points at the code that refused.
                if let Some((first, rest)) = self.refused_by.split_first() {
                    write!(f, " (`{first}`")?;
                    for guard in rest {
                        write!(f, ", `{guard}`")?;
                    }
                    f.write_str(" said no)")?;
                }
                return Ok(());
            }
            Reason::NeedsGuards => {
                return write!(
                    f,
                    "event `{event}` in state `{state}` depends on guards: fire it with hooks that answer them"
                );
            }
            Reason::Rejected(why) => {
                return write!(f, "event `{event}` was rejected in state `{state}`: {why}");
            }
            Reason::NotAccepted => {}
        }
        write!(f, "event `{event}` is not accepted in state `{state}`; ")?;
        if self.accepted.is_empty() {
            f.write_str("it accepts no events")
        } else {
            f.write_str("it accepts: ")?;
            write_list(f, self.accepted)
        }
    }
}

impl<S: Display + fmt::Debug, E: Display + fmt::Debug> Error for InvalidTransition<S, E> {}

/// A validator's refusal: why a message may not be taken. The transition does not happen and nothing changes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ValidationError {
    message: String,
}

impl ValidationError {
    /// A refusal explained by `message` (shown to whoever sent the event).
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// The explanation.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl Display for ValidationError {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl Error for ValidationError {}

/// One transition in progress: what every hook receives.
///
/// `S`, `E` and `M` are the machine's `State`, `Event` and `Message`; `P` is what the machine's profile adds
/// to a transition (`()` for most; a Genie machine's [`Turn`](crate::genie::Turn) carries the actor's input,
/// the dialogue and the persistence of this turn). Generated modules name the whole type `Transition<'a>`.
#[derive(Debug)]
pub struct Transition<'a, S, E, M: ?Sized, P: ?Sized = ()> {
    /// The source state.
    pub from: S,
    /// The event, without its data.
    pub event: E,
    /// The target state.
    pub to: S,
    /// The state the machine is in while this hook runs: `from` until the state update, `to` from then on
    /// (enter and after hooks).
    pub state: S,
    /// The event with its data, as it was fired.
    pub message: &'a M,
    /// What the machine's profile adds to the transition.
    pub profile: &'a P,
}

impl<S: Copy, E: Copy, M: ?Sized, P: ?Sized> Clone for Transition<'_, S, E, M, P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S: Copy, E: Copy, M: ?Sized, P: ?Sized> Copy for Transition<'_, S, E, M, P> {}

impl<S: PartialEq, E, M: ?Sized, P: ?Sized> Transition<'_, S, E, M, P> {
    /// Whether the transition returns to its source (exit and enter hooks of that state both run).
    pub fn is_self_loop(&self) -> bool {
        self.from == self.to
    }
}

/// The groups of hooks a transition runs, in the order they run (Genie Flow's "transition steps").
///
/// Inside a group the generated code runs the transition-wide hook first, then the one named after the event
/// or state, then (in the `On` group) the spec's `do` actions in the order written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum HookGroup {
    /// Validators (`validate`), on the source state. An error refuses the event.
    Validators,
    /// The spec's `if` / `unless` guards, on the source state. A failing one passes on to the next
    /// transition on the event, if any.
    Conditions,
    /// `before_transition`, `before_<event>`.
    Before,
    /// `on_exit_state`, `on_exit_<state>` of the source.
    Exit,
    /// `on_transition`, `on_<event>` and the spec's `do` actions.
    On,
    /// The state changes to the target.
    StateUpdate,
    /// `on_enter_state`, `on_enter_<state>` of the target.
    Enter,
    /// `after_transition`, `after_<event>`, on the target state.
    After,
}

impl HookGroup {
    /// Every group in running order; equal to the `Ord` order.
    pub const ORDER: [Self; 8] = [
        Self::Validators,
        Self::Conditions,
        Self::Before,
        Self::Exit,
        Self::On,
        Self::StateUpdate,
        Self::Enter,
        Self::After,
    ];

    /// The snake_case name, e.g. `state_update`.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Validators => "validators",
            Self::Conditions => "conditions",
            Self::Before => "before",
            Self::Exit => "exit",
            Self::On => "on",
            Self::StateUpdate => "state_update",
            Self::Enter => "enter",
            Self::After => "after",
        }
    }

    /// Whether the group runs with the target as current state (after the state update).
    pub const fn in_target(self) -> bool {
        matches!(self, Self::Enter | Self::After)
    }

    /// Whether a hook of this group can refuse the event (validators and conditions only).
    pub const fn can_refuse(self) -> bool {
        matches!(self, Self::Validators | Self::Conditions)
    }
}

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
    #[doc(hidden)]
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
/// Generic helpers such as [`run`] and [`run_with`] work on any generated machine through it. It is not meant
/// to be used as a trait object: it has an associated constant and returns `Self`.
pub trait Machine: Copy + 'static {
    /// The machine's event enum (the events' names, without data).
    type Event: Copy + 'static;

    /// An event with its data: the generated `Message` (the `Event` itself when no event carries data).
    type Message: ?Sized;

    /// The generated `Hooks` trait as a trait object: what [`Machine::fire`] runs.
    type Hooks: ?Sized;

    /// Every state, in spec order.
    const ALL: &'static [Self];

    /// The state reached from `self` on `event`, or an error naming the events `self` accepts. Runs no hooks;
    /// an event whose transitions have guards is refused ([`Reason::NeedsGuards`]).
    fn next(self, event: Self::Event) -> Result<Self, InvalidTransition<Self, Self::Event>>;

    /// Fires `message`, running `hooks` in the order of [`HookGroup::ORDER`]; a refusal changes nothing.
    fn fire(
        self,
        message: &Self::Message,
        hooks: &mut Self::Hooks,
    ) -> Result<Self, InvalidTransition<Self, Self::Event>>;

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

/// Applies `events` in order from `start` with [`Machine::next`] and returns the state reached.
///
/// Stops at the first event the current state does not take and returns that error; the states
/// before it are not rolled back because states are plain values and nothing was mutated.
pub fn run<M: Machine>(
    start: M,
    events: impl IntoIterator<Item = M::Event>,
) -> Result<M, InvalidTransition<M, M::Event>> {
    events.into_iter().try_fold(start, M::next)
}

/// Fires `messages` in order from `start` with [`Machine::fire`], running `hooks`, and returns the state
/// reached; stops at the first refusal and returns it (the hooks of the transitions before it have run).
pub fn run_with<M: Machine, I>(
    start: M,
    messages: I,
    hooks: &mut M::Hooks,
) -> Result<M, InvalidTransition<M, M::Event>>
where
    I: IntoIterator,
    I::Item: std::borrow::Borrow<M::Message>,
    M::Message: Sized,
{
    messages.into_iter().try_fold(start, |state, message| {
        state.fire(std::borrow::Borrow::borrow(&message), hooks)
    })
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

    /// Counts the transitions fired.
    trait LightHooks {
        fn fired(&mut self, from: Light, to: Light);
    }

    impl LightHooks for Vec<(Light, Light)> {
        fn fired(&mut self, from: Light, to: Light) {
            self.push((from, to));
        }
    }

    impl Machine for Light {
        type Event = Ev;
        type Message = Ev;
        type Hooks = dyn LightHooks;
        const ALL: &'static [Self] = &[Light::Red, Light::Green, Light::Off];

        fn fire(
            self,
            message: &Ev,
            hooks: &mut Self::Hooks,
        ) -> Result<Self, InvalidTransition<Self, Ev>> {
            let to = self.next(*message)?;
            hooks.fired(self, to);
            Ok(to)
        }

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
        let err = InvalidTransition::new(Light::Red, Ev::Go, Reason::NoGuardHeld);
        assert_eq!(
            err.to_string(),
            "event `GO` was refused in state `Red`: no guard of its transitions held"
        );
        assert!(err.is_refused_by_hooks());
        let err =
            InvalidTransition::no_guard_held(Light::Red, Ev::Go, vec!["if clear", "unless jammed"]);
        assert_eq!(
            err.to_string(),
            "event `GO` was refused in state `Red`: no guard of its transitions held (`if clear`, `unless jammed` said no)"
        );
        let err = InvalidTransition::new(Light::Red, Ev::Go, Reason::NeedsGuards);
        assert_eq!(
            err.to_string(),
            "event `GO` in state `Red` depends on guards: fire it with hooks that answer them"
        );
        let err = InvalidTransition::new(
            Light::Red,
            Ev::Go,
            Reason::Rejected(ValidationError::new("the road is closed")),
        );
        assert_eq!(
            err.to_string(),
            "event `GO` was rejected in state `Red`: the road is closed"
        );
        assert!(!InvalidTransition::for_state(Light::Red, Ev::Go).is_refused_by_hooks());
    }

    #[test]
    fn run_with_fires_through_the_hooks() {
        let mut fired: Vec<(Light, Light)> = Vec::new();
        let end = run_with(Light::Red, [Ev::Go, Ev::Stop], &mut fired).unwrap();
        assert_eq!(end, Light::Red);
        assert_eq!(
            fired,
            [(Light::Red, Light::Green), (Light::Green, Light::Red)]
        );
        let err = run_with(Light::Red, [&Ev::Stop], &mut fired).unwrap_err();
        assert_eq!(err.reason, Reason::NotAccepted);
        assert_eq!(fired.len(), 2);
    }

    #[test]
    fn hook_order_is_genie_flows_order() {
        let names: Vec<_> = HookGroup::ORDER.iter().map(|g| g.name()).collect();
        assert_eq!(
            names,
            [
                "validators",
                "conditions",
                "before",
                "exit",
                "on",
                "state_update",
                "enter",
                "after"
            ]
        );
        assert!(HookGroup::ORDER.is_sorted());
        assert!(HookGroup::After.in_target() && !HookGroup::On.in_target());
        let refusing: Vec<_> = HookGroup::ORDER.iter().filter(|g| g.can_refuse()).collect();
        assert_eq!(refusing, [&HookGroup::Validators, &HookGroup::Conditions]);
    }

    #[test]
    fn a_transition_record_knows_self_loops() {
        let t = Transition {
            from: Light::Red,
            event: Ev::Go,
            to: Light::Red,
            state: Light::Red,
            message: &Ev::Go,
            profile: &(),
        };
        assert!(t.is_self_loop());
        let copy = t;
        assert_eq!(copy.to, t.to);
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
