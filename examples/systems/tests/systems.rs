//! The examples, run end to end on generated code: each system fsmc targets, with its rules observed. The
//! staged supply chain has its own file, `supply_chain.rs`, and the TAC negotiation `tac.rs`.

use fsmc_examples::tac;

#[test]
fn a_performative_out_of_turn_is_rejected_with_the_accepted_ones() {
    use tac::fipa_negotiation::{Event, State};
    let err = State::Idle.next(Event::Accept).unwrap_err();
    assert_eq!(err.accepted, [Event::CallToBuy, Event::CallToSell]);
    assert_eq!(
        err.to_string(),
        "event `Accept` is not accepted in state `Idle`; it accepts: `CallToBuy`, `CallToSell`"
    );
}

mod shop {
    fsmc_runtime::fsm!(
        r#"
        /// A cart whose order only goes through while the item is in stock.
        machine Shop {
            event PLACE, PAY;
            start default state Cart;
            state Placed;
            final state Paid;
            (Cart, PLACE) -> Placed if in_stock;
            (Placed, PAY) -> Paid;
        }
        "#
    );
}

#[test]
fn a_refused_guard_is_reported_as_refused() {
    use fsmc_runtime::Reason;
    use shop::shop::{Event, Hooks, State, Transition};
    struct Stock(bool);
    impl Hooks for Stock {
        fn in_stock(&self, _: &Transition<'_>) -> bool {
            self.0
        }
    }
    let err = State::Cart
        .fire(&Event::Place, &mut Stock(false))
        .unwrap_err();
    assert_eq!(err.reason, Reason::NoGuardHeld);
    assert_eq!(
        err.to_string(),
        "event `PLACE` was refused in state `Cart`: no guard of its transitions held (`if in_stock` said no)"
    );
    assert_eq!(err.refused_by, ["if in_stock"]);
    // An event the state has no transition for is still "not accepted".
    let err = State::Cart.fire(&Event::Pay, &mut Stock(true)).unwrap_err();
    assert_eq!(err.reason, Reason::NotAccepted);
    assert_eq!(
        err.to_string(),
        "event `PAY` is not accepted in state `Cart`; it accepts: `PLACE`"
    );
    assert_eq!(
        State::Cart.fire(&Event::Place, &mut Stock(true)),
        Ok(State::Placed)
    );
    // The guard did not take `next` away: it answers where the event alone decides, and says where it does
    // not.
    assert_eq!(State::Placed.next(Event::Pay), Ok(State::Paid));
    assert_eq!(
        State::Cart.next(Event::Place).unwrap_err().reason,
        Reason::NeedsGuards
    );
}

#[test]
fn states_and_events_serialize_as_their_spec_names() {
    use tac::fipa_negotiation::{Event, State};
    assert_eq!(
        serde_json::to_string(&Event::MatchAccept).unwrap(),
        "\"MatchAccept\""
    );
    let state: State = serde_json::from_str("\"Idle\"").unwrap();
    assert_eq!(state, State::Idle);
    let err = serde_json::from_str::<State>("\"Nowhere\"").unwrap_err();
    assert!(
        err.to_string().contains("`Nowhere` is not a state of"),
        "{err}"
    );
    // A round trip through every state.
    for s in State::ALL {
        let text = serde_json::to_string(s).unwrap();
        assert_eq!(serde_json::from_str::<State>(&text).unwrap(), *s);
    }
}

mod ping {
    fsmc_runtime::fsm!(
        r#"
        /// One question, one answer; only the answerer's copy logs the question.
        machine Ping: dialogue {
            roles asker, answerer;
            event Ask by asker;
            event Answer by responder;
            start default state Idle;
            state Asked;
            final state Answered;
            (Idle, Ask) -> Asked receiver do log_question;
            (Asked, Answer) -> Answered;
        }
        "#
    );
}

#[test]
fn an_action_on_one_side_runs_on_that_sides_copy_only() {
    use ping::ping::{Dialogues, Hooks, Message, State, Transition};
    #[derive(Default)]
    struct Log(Vec<String>);
    impl Hooks for Log {
        fn log_question(&mut self, t: &Transition<'_>) {
            self.0.push(t.profile.me().to_string());
        }
    }
    let (mut asker, mut answerer) = (Dialogues::new("ann"), Dialogues::new("bo"));
    let (mut a, mut b) = (Log::default(), Log::default());
    let ask = asker.open("bo", Message::Ask, &mut a).unwrap();
    assert_eq!(answerer.receive(&ask, &mut b), Ok(State::Asked));
    // The machine's one action is on the receiver's side: the sender's copy ran nothing.
    assert!(a.0.is_empty());
    assert_eq!(b.0, ["bo"]);
    let d = ask.header.dialogue.clone();
    let answer = answerer.send(&d, Message::Answer, &mut b).unwrap();
    assert_eq!(asker.receive(&answer, &mut a), Ok(State::Answered));
    assert_eq!((a.0.len(), b.0.len()), (0, 1));
}
