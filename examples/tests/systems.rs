//! The examples, run end to end on generated code: each system of the brief, with its rules observed.

use fsmc_examples::{negotiation, supply_chain, support};

#[test]
fn supply_chain_runs_and_respects_stages() {
    use supply_chain::supply_chain_env::{Agent, State};
    let (trace, world) = supply_chain::run(40).expect("handlers only pick next stages");
    // Both branches of the ordering handler are taken over the run.
    let after_ordering: Vec<State> = trace
        .windows(2)
        .filter(|w| w[0].stage == State::Ordering)
        .map(|w| w[1].stage)
        .collect();
    assert!(
        after_ordering.contains(&State::Delivery) && after_ordering.contains(&State::Restocking),
        "{after_ordering:?}"
    );
    // A stage without a handler always moves to its one next stage.
    for w in trace.windows(2) {
        if !w[0].stage.has_handler() {
            assert_eq!(w[0].stage.next_stages(), [w[1].stage]);
        }
    }
    assert_eq!(State::Audit.acting(), [Agent::Regulator]);
    // `rewarded` defaults to the acting agents.
    assert_eq!(State::Ordering.rewarded(), State::Ordering.acting());
    assert!(world.delivered > 0);
}

#[test]
fn a_handler_moving_outside_its_next_stages_is_a_runtime_error() {
    use supply_chain::supply_chain_env::State;
    let err = State::Ordering.goto(State::Audit).unwrap_err();
    assert_eq!(err.allowed, State::Ordering.next_stages());
    assert!(err.to_string().contains("Audit"), "{err}");
}

#[test]
fn negotiations_end_in_each_end_state() {
    use negotiation::fipa_negotiation::{Event, Role, State};
    let mut m = negotiation::Market::new();
    assert_eq!(
        m.negotiate("tx-1", "apple", 2, 10, 30, false),
        Ok(State::Successful)
    );
    assert_eq!(
        m.negotiate("tx-2", "pear", 1, 10, 30, false),
        Ok(State::DeclinedCfp)
    );
    assert_eq!(
        m.negotiate("tx-3", "apple", 1, 50, 30, false),
        Ok(State::DeclinedPropose)
    );
    assert_eq!(
        m.negotiate("tx-4", "apple", 1, 10, 30, true),
        Ok(State::DeclinedAccept)
    );
    // The controller settled only the matched transaction, and nothing stays locked.
    assert_eq!(m.settled.len(), 1);
    assert_eq!((m.buyer.money, m.seller.money), (80, 20));
    assert_eq!(m.locked(), 0);
    // Roles alternate in every dialogue.
    for pair in m.log.windows(2) {
        if pair[1].1 != Event::Cfp {
            assert_ne!(pair[0].0, pair[1].0, "{pair:?}");
        }
    }
    assert_eq!(Event::Propose.role(), Some(Role::Seller));
}

#[test]
fn a_performative_out_of_turn_is_rejected_with_the_accepted_ones() {
    use negotiation::fipa_negotiation::{Event, State};
    let err = State::Idle.next(Event::Accept).unwrap_err();
    assert_eq!(err.accepted, [Event::Cfp]);
    assert_eq!(
        err.to_string(),
        "event `Accept` is not accepted in state `Idle`; it accepts: `Cfp`"
    );
}

#[test]
fn support_conversation_polls_invokers_and_records_the_dialogue() {
    use fsmc_runtime::genie::Actor;
    use support::support_assistant::State;
    let c = support::answered("my invoice shows the wrong address").expect("valid conversation");
    assert_eq!(c.state, State::Closed);
    // While an invoker works only `poll` is offered, with progress.
    for s in &c.screens {
        if s.progress.is_some_and(|(d, t)| d < t) {
            assert_eq!(s.offered, ["poll"]);
        }
    }
    let texts: Vec<(Actor, &str)> = c
        .session
        .dialogue()
        .utterances()
        .iter()
        .map(|u| (u.actor, u.text.as_str()))
        .collect();
    // user→invoker records the raw input; invoker→invoker records nothing unless overridden (the spec
    // overrides RetrieveDocuments → DraftAnswer to `rendered`); invoker→user records the rendered output.
    assert_eq!(
        texts[0],
        (Actor::User, "my invoice shows the wrong address")
    );
    assert!(
        texts.iter().any(
            |(a, t)| *a == Actor::Assistant && t.starts_with("[support/present_answer.jinja2]")
        )
    );
    assert_eq!(
        c.assistant.actions,
        ["log_question", "record_answer", "record_resolution"]
    );
}

#[test]
fn ambiguous_questions_ask_for_clarification() {
    use support::support_assistant::State;
    let mut c = support::Conversation::default();
    c.send(support::support_assistant::Event::UserInput, "help")
        .unwrap();
    assert_eq!(c.run_invokers().unwrap(), State::AskClarification);
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
    use shop::shop::{Event, Hooks, State};
    struct Stock(bool);
    impl Hooks for Stock {
        fn in_stock(&mut self, _: State, _: Event) -> bool {
            self.0
        }
    }
    let err = State::Cart
        .fire(Event::Place, &mut Stock(false))
        .unwrap_err();
    assert!(err.guarded);
    assert_eq!(
        err.to_string(),
        "event `PLACE` was refused in state `Cart`: no guard of its transitions held"
    );
    // An event the state has no transition for is still "not accepted".
    let err = State::Cart.fire(Event::Pay, &mut Stock(true)).unwrap_err();
    assert!(!err.guarded);
    assert_eq!(
        err.to_string(),
        "event `PAY` is not accepted in state `Cart`; it accepts: `PLACE`"
    );
    assert_eq!(
        State::Cart.fire(Event::Place, &mut Stock(true)),
        Ok(State::Placed)
    );
}

#[test]
fn states_and_events_serialize_as_their_spec_names() {
    use negotiation::fipa_negotiation::{Event, State};
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
