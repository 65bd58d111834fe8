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
        "event `PLACE` was refused in state `Cart`: no guard of its transitions held"
    );
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
