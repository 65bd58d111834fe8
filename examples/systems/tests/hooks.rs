//! The transition pipeline of generated code: every hook a transition runs, in the order of Genie Flow's
//! transition steps (validators → conditions → before → exit → on → state update → enter → after), recorded for
//! every kind of transition, and every refusal leaving the state and the context as they were. Also events that
//! carry data, as hooks and `Message` see them.

mod lab {
    fsmc_runtime::fsm!(
        r#"
        /// A Genie machine with one transition of every kind.
        machine Lab: genie {
            event ask, again, advance;
            start default state Ask: user { template "tests/templates/ask.jinja2"; }
            state Think: invoker { template "tests/templates/think.jinja2"; runs think; }
            state Check: invoker { template "tests/templates/think.jinja2"; runs check; }
            final state Show: user { template "tests/templates/show.jinja2"; }
            (Ask, again) -> Ask do note;
            (Ask, ask) -> Think if allowed unless busy do note, count;
            (Think, advance) -> Check;
            (Check, advance) -> Show;
        }
        "#
    );
}

use fsmc_runtime::genie::{StateType, Turn};
use fsmc_runtime::{Machine, Reason, ValidationError};
use lab::lab::{Event, Hooks, State, Transition, transition_type};

/// Records every hook call as `group hook from->to @state`, with what the hook saw.
#[derive(Clone, Debug, Default, PartialEq)]
struct Recorder {
    calls: Vec<String>,
    allowed: bool,
    busy: bool,
    counted: u32,
}

impl Recorder {
    fn open() -> Self {
        Recorder {
            allowed: true,
            ..Recorder::default()
        }
    }
}

fn line(hook: &str, t: &Transition<'_>) -> String {
    format!("{hook} {}->{} @{}", t.from, t.to, t.state)
}

// The guards and validators take `&self`: they cannot record into the context. They record into a
// thread-local log instead, which the tests read back in order with the other hooks.
thread_local! {
    static DECIDED: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn decided(entry: String) {
    DECIDED.with(|d| d.borrow_mut().push(entry));
}

impl Recorder {
    fn push(&mut self, hook: &str, t: &Transition<'_>) {
        // Decisions made since the last hook come first: they ran before it.
        DECIDED.with(|d| self.calls.append(&mut d.borrow_mut()));
        self.calls.push(line(hook, t));
    }
}

impl Hooks for Recorder {
    fn allowed(&self, t: &Transition<'_>) -> bool {
        decided(line("cond allowed", t));
        self.allowed
    }
    fn busy(&self, t: &Transition<'_>) -> bool {
        decided(line("cond busy", t));
        self.busy
    }
    fn note(&mut self, t: &Transition<'_>) {
        self.push("on do:note", t);
    }
    fn count(&mut self, t: &Transition<'_>) {
        self.counted += 1;
        self.push("on do:count", t);
    }
    fn validate(&self, t: &Transition<'_>) -> Result<(), ValidationError> {
        decided(line("validate", t));
        match t.profile.actor_input() {
            "reject" => Err(ValidationError::new("rejected on purpose")),
            _ => Ok(()),
        }
    }
    fn before_transition(&mut self, t: &Transition<'_>) {
        self.push("before before_transition", t);
    }
    fn before_ask(&mut self, t: &Transition<'_>) {
        self.push("before before_ask", t);
    }
    fn before_again(&mut self, t: &Transition<'_>) {
        self.push("before before_again", t);
    }
    fn before_advance(&mut self, t: &Transition<'_>) {
        self.push("before before_advance", t);
    }
    fn on_exit_state(&mut self, t: &Transition<'_>) {
        self.push("exit on_exit_state", t);
    }
    fn on_exit_ask(&mut self, t: &Transition<'_>) {
        self.push("exit on_exit_ask", t);
    }
    fn on_exit_think(&mut self, t: &Transition<'_>) {
        self.push("exit on_exit_think", t);
    }
    fn on_exit_check(&mut self, t: &Transition<'_>) {
        self.push("exit on_exit_check", t);
    }
    fn on_transition(&mut self, t: &Transition<'_>) {
        self.push("on on_transition", t);
    }
    fn on_ask(&mut self, t: &Transition<'_>) {
        self.push("on on_ask", t);
    }
    fn on_again(&mut self, t: &Transition<'_>) {
        self.push("on on_again", t);
    }
    fn on_advance(&mut self, t: &Transition<'_>) {
        self.push("on on_advance", t);
    }
    fn on_enter_state(&mut self, t: &Transition<'_>) {
        self.push("enter on_enter_state", t);
    }
    fn on_enter_ask(&mut self, t: &Transition<'_>) {
        self.push("enter on_enter_ask", t);
    }
    fn on_enter_think(&mut self, t: &Transition<'_>) {
        self.push("enter on_enter_think", t);
    }
    fn on_enter_check(&mut self, t: &Transition<'_>) {
        self.push("enter on_enter_check", t);
    }
    fn on_enter_show(&mut self, t: &Transition<'_>) {
        self.push("enter on_enter_show", t);
    }
    fn after_transition(&mut self, t: &Transition<'_>) {
        self.push("after after_transition", t);
    }
    fn after_ask(&mut self, t: &Transition<'_>) {
        self.push("after after_ask", t);
    }
    fn after_again(&mut self, t: &Transition<'_>) {
        self.push("after after_again", t);
    }
    fn after_advance(&mut self, t: &Transition<'_>) {
        self.push("after after_advance", t);
    }
}

/// Fires `event` with `input` from `from` and returns the result with every hook call, in order.
fn fire(
    from: State,
    event: Event,
    input: &str,
    hooks: &mut Recorder,
) -> (
    Result<State, fsmc_runtime::InvalidTransition<State, Event>>,
    Vec<String>,
) {
    DECIDED.with(|d| d.borrow_mut().clear());
    hooks.calls.clear();
    let turn = Turn::new(input, &[]);
    let result = from.fire_with(&event, &turn, hooks);
    // Decisions after the last hook (a refusal) are part of the record too.
    DECIDED.with(|d| hooks.calls.append(&mut d.borrow_mut()));
    (result, hooks.calls.clone())
}

#[test]
fn a_self_loop_exits_and_enters_its_own_state() {
    let mut r = Recorder::open();
    let (result, calls) = fire(State::Ask, Event::Again, "again", &mut r);
    assert_eq!(result, Ok(State::Ask));
    assert_eq!(
        calls,
        [
            "validate Ask->Ask @Ask",
            "before before_transition Ask->Ask @Ask",
            "before before_again Ask->Ask @Ask",
            "exit on_exit_state Ask->Ask @Ask",
            "exit on_exit_ask Ask->Ask @Ask",
            "on on_transition Ask->Ask @Ask",
            "on on_again Ask->Ask @Ask",
            "on do:note Ask->Ask @Ask",
            "enter on_enter_state Ask->Ask @Ask",
            "enter on_enter_ask Ask->Ask @Ask",
            "after after_transition Ask->Ask @Ask",
            "after after_again Ask->Ask @Ask",
        ]
    );
    assert_eq!(
        transition_type(State::Ask, State::Ask).from,
        StateType::User
    );
}

#[test]
fn a_guarded_user_to_invoker_transition_asks_its_conditions_after_the_validators() {
    let mut r = Recorder::open();
    let (result, calls) = fire(State::Ask, Event::Ask, "why?", &mut r);
    assert_eq!(result, Ok(State::Think));
    let kind = transition_type(State::Ask, State::Think);
    assert_eq!((kind.from, kind.to), (StateType::User, StateType::Invoker));
    assert_eq!(
        calls,
        [
            "validate Ask->Think @Ask",
            "cond allowed Ask->Think @Ask",
            "cond busy Ask->Think @Ask",
            "before before_transition Ask->Think @Ask",
            "before before_ask Ask->Think @Ask",
            "exit on_exit_state Ask->Think @Ask",
            "exit on_exit_ask Ask->Think @Ask",
            "on on_transition Ask->Think @Ask",
            "on on_ask Ask->Think @Ask",
            "on do:note Ask->Think @Ask",
            "on do:count Ask->Think @Ask",
            "enter on_enter_state Ask->Think @Think",
            "enter on_enter_think Ask->Think @Think",
            "after after_transition Ask->Think @Think",
            "after after_ask Ask->Think @Think",
        ]
    );
    assert_eq!(r.counted, 1);
}

#[test]
fn invoker_to_invoker_and_invoker_to_user_run_the_same_groups() {
    for (from, to, exit, enter, kind) in [
        (
            State::Think,
            State::Check,
            "on_exit_think",
            "on_enter_check",
            (StateType::Invoker, StateType::Invoker),
        ),
        (
            State::Check,
            State::Show,
            "on_exit_check",
            "on_enter_show",
            (StateType::Invoker, StateType::User),
        ),
    ] {
        let mut r = Recorder::open();
        let (result, calls) = fire(from, Event::Advance, "output", &mut r);
        assert_eq!(result, Ok(to));
        let k = transition_type(from, to);
        assert_eq!((k.from, k.to), kind);
        let (f, t) = (from.name(), to.name());
        let expected: Vec<String> = [
            format!("validate {f}->{t} @{f}"),
            format!("before before_transition {f}->{t} @{f}"),
            format!("before before_advance {f}->{t} @{f}"),
            format!("exit on_exit_state {f}->{t} @{f}"),
            format!("exit {exit} {f}->{t} @{f}"),
            format!("on on_transition {f}->{t} @{f}"),
            format!("on on_advance {f}->{t} @{f}"),
            format!("enter on_enter_state {f}->{t} @{t}"),
            format!("enter {enter} {f}->{t} @{t}"),
            format!("after after_transition {f}->{t} @{t}"),
            format!("after after_advance {f}->{t} @{t}"),
        ]
        .into();
        assert_eq!(calls, expected, "{f} -> {t}");
    }
}

#[test]
fn a_validator_refusal_runs_no_other_hook_and_changes_nothing() {
    let mut r = Recorder::open();
    let before = r.clone();
    let (result, calls) = fire(State::Ask, Event::Ask, "reject", &mut r);
    let err = result.unwrap_err();
    assert_eq!(
        err.reason,
        Reason::Rejected(ValidationError::new("rejected on purpose"))
    );
    assert_eq!(err.state, State::Ask);
    assert_eq!(
        err.to_string(),
        "event `ask` was rejected in state `Ask`: rejected on purpose"
    );
    // The validator ran, and nothing after it: no condition, no hook, no action.
    assert_eq!(calls, ["validate Ask->Think @Ask"]);
    assert_eq!(
        Recorder {
            calls: Vec::new(),
            ..r
        },
        before
    );
}

#[test]
fn a_failing_condition_runs_no_other_hook_and_changes_nothing() {
    // The refusal names the guard that said no: the first that did not hold (the later ones are not asked).
    for (allowed, busy, asked, said_no) in [
        (
            false,
            false,
            vec!["cond allowed Ask->Think @Ask"],
            "if allowed",
        ),
        (
            true,
            true,
            vec!["cond allowed Ask->Think @Ask", "cond busy Ask->Think @Ask"],
            "unless busy",
        ),
    ] {
        let mut r = Recorder {
            allowed,
            busy,
            ..Recorder::default()
        };
        let before = r.clone();
        let (result, calls) = fire(State::Ask, Event::Ask, "why?", &mut r);
        let err = result.unwrap_err();
        assert_eq!(err.reason, Reason::NoGuardHeld);
        assert_eq!(err.refused_by, [said_no]);
        assert!(err.to_string().ends_with(&format!("(`{said_no}` said no)")));
        assert!(err.is_refused_by_hooks());
        let mut expected = vec!["validate Ask->Think @Ask"];
        expected.extend(asked);
        assert_eq!(calls, expected);
        assert_eq!(r.counted, before.counted);
    }
}

#[test]
fn an_event_the_state_does_not_accept_runs_no_hook() {
    let mut r = Recorder::open();
    let (result, calls) = fire(State::Think, Event::Ask, "", &mut r);
    let err = result.unwrap_err();
    assert_eq!(err.reason, Reason::NotAccepted);
    assert_eq!(err.accepted, [Event::Advance]);
    assert!(calls.is_empty());
    // A final state accepts nothing.
    let (result, calls) = fire(State::Show, Event::Advance, "", &mut r);
    assert_eq!(result.unwrap_err().accepted, []);
    assert!(calls.is_empty());
}

#[test]
fn next_and_the_machine_trait_stay_with_guards() {
    // `next` answers where the event alone decides, and refuses (without running anything) where guards do.
    assert_eq!(State::Think.next(Event::Advance), Ok(State::Check));
    assert_eq!(State::Ask.next(Event::Again), Ok(State::Ask));
    let err = State::Ask.next(Event::Ask).unwrap_err();
    assert_eq!(err.reason, Reason::NeedsGuards);
    assert_eq!(
        err.to_string(),
        "event `ask` in state `Ask` depends on guards: fire it with hooks that answer them"
    );
    // Through the trait, generic code fires with a `dyn Hooks` (and the profile's default turn).
    let mut r = Recorder::open();
    let end = fsmc_runtime::run_with(
        State::Ask,
        [Event::Ask, Event::Advance, Event::Advance],
        &mut r as &mut <State as Machine>::Hooks,
    );
    assert_eq!(end, Ok(State::Show));
    assert_eq!(
        fsmc_runtime::run(State::Think, [Event::Advance]),
        Ok(State::Check)
    );
}

mod orders {
    fsmc_runtime::fsm!(
        r#"
        /// Orders whose events carry data.
        machine Orders {
            event Place(item: String, qty: u32);
            event Cancel(reason: String);
            event Ship;
            start default state Open;
            state Placed;
            final state Shipped;
            final state Cancelled;
            (Open, Place) -> Placed if in_stock;
            (Placed, Cancel) -> Cancelled;
            (Placed, Ship) -> Shipped;
        }
        "#
    );
}

#[test]
fn events_carry_their_data_to_guards_and_hooks() {
    use orders::orders::{Event, Hooks, Message, State, Transition, messages};
    #[derive(Default)]
    struct Shop {
        stock: u32,
        placed: Vec<(String, u32)>,
        cancelled: Option<String>,
    }
    impl Hooks for Shop {
        // A guard named on one event with data receives the data.
        fn in_stock(&self, _: &Transition<'_>, data: &messages::Place) -> bool {
            data.qty <= self.stock
        }
        fn on_place(&mut self, _: &Transition<'_>, data: &messages::Place) {
            self.stock -= data.qty;
            self.placed.push((data.item.clone(), data.qty));
        }
        fn after_cancel(&mut self, t: &Transition<'_>, data: &messages::Cancel) {
            assert_eq!(t.state, State::Cancelled);
            self.cancelled = Some(data.reason.clone());
        }
    }
    let mut shop = Shop {
        stock: 3,
        ..Shop::default()
    };
    let place = |qty| -> Message {
        messages::Place {
            item: "apple".into(),
            qty,
        }
        .into()
    };
    assert_eq!(place(1).event(), Event::Place);
    // More than the stock: the guard refuses, the hook does not run.
    let err = State::Open.fire(&place(5), &mut shop).unwrap_err();
    assert_eq!(err.reason, fsmc_runtime::Reason::NoGuardHeld);
    assert!(shop.placed.is_empty());
    assert_eq!(State::Open.fire(&place(2), &mut shop), Ok(State::Placed));
    assert_eq!(
        (shop.stock, shop.placed.clone()),
        (1, vec![("apple".into(), 2)])
    );
    let cancel = Message::Cancel(messages::Cancel {
        reason: "changed my mind".into(),
    });
    assert_eq!(State::Placed.fire(&cancel, &mut shop), Ok(State::Cancelled));
    assert_eq!(shop.cancelled.as_deref(), Some("changed my mind"));
    // An event without data is a unit variant; `next` still takes the bare event.
    assert_eq!(
        State::Placed.fire(&Message::Ship, &mut shop),
        Ok(State::Shipped)
    );
    assert_eq!(State::Placed.next(Event::Ship), Ok(State::Shipped));
}

/// The owning machine keeps its state and context: messages go in, a refused one changes nothing, and a message
/// struct compares and hashes as its fields do.
#[test]
fn an_owning_machine_handles_messages_and_keeps_its_state() {
    use orders::orders::{Hooks, State, StateMachine, Transition, messages};
    #[derive(Debug, Default)]
    struct Stock(u32);
    impl Hooks for Stock {
        fn in_stock(&self, _: &Transition<'_>, data: &messages::Place) -> bool {
            data.qty <= self.0
        }
    }
    let mut machine = StateMachine::new(Stock(2));
    let place = |qty| messages::Place {
        item: "pear".into(),
        qty,
    };
    assert!(machine.handle(place(3)).is_err());
    assert_eq!(machine.state(), State::Open);
    assert_eq!(machine.handle(place(2)), Ok(State::Placed));
    assert_eq!(
        machine.handle(orders::orders::Message::Ship),
        Ok(State::Shipped)
    );
    assert_eq!(machine.context().0, 2);
    let hash = |p: &messages::Place| {
        use std::hash::{Hash, Hasher};
        let mut h = std::hash::DefaultHasher::new();
        p.hash(&mut h);
        h.finish()
    };
    assert_eq!(hash(&place(1)), hash(&place(1)));
    assert_ne!(hash(&place(1)), hash(&place(2)));
}

mod door {
    fsmc_runtime::fsm!(
        r#"
        machine Door {
            event OPEN, CLOSE;
            start default state Closed;
            state Opened;
            (Closed, OPEN) -> Opened;
            (Opened, CLOSE) -> Closed;
        }
        "#
    );
}

#[test]
fn a_machine_without_guards_fires_with_no_hooks_or_with_some() {
    use door::door::{Event, Hooks, State, Transition};
    // No guard and no action: `()` is a `Hooks`, and a message is its event.
    assert_eq!(State::Closed.fire(&Event::Open, &mut ()), Ok(State::Opened));
    struct Count(u32);
    impl Hooks for Count {
        fn on_enter_opened(&mut self, _: &Transition<'_>) {
            self.0 += 1;
        }
    }
    let mut c = Count(0);
    assert_eq!(
        fsmc_runtime::run_with(
            State::Closed,
            [Event::Open, Event::Close, Event::Open],
            &mut c
        ),
        Ok(State::Opened)
    );
    assert_eq!(c.0, 2);
}
