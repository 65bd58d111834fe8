//! Drawing never fails or panics, whatever the machine's shape: machines built directly in the model
//! (so unchecked ones too: no start state, isolated states, self-loops only, dense graphs, long names).

use crate::TB;
use fsmc::export::{self, Direction, Target};
use fsmc_base::source::{Name, Span};
use fsmc_model::spec::{Event, Machine, Origin, State, StateId, ThinVec, Transition};
use fsmc_testkit::Lcg;
use fsmc_vocab::Profile;

fn name(s: &str) -> Name {
    Name::new(s, Span::default())
}

/// A machine with `states` states and the given `(from, event, to)` transitions.
fn machine(
    states: usize,
    events: usize,
    edges: &[(usize, Option<usize>, usize)],
    starts: &[usize],
    finals: &[usize],
) -> Machine {
    let mut m = Machine::new(name("Shape"), Profile::Plain, Origin::Fsm, Span::default());
    for i in 0..states {
        let long = if i % 7 == 3 {
            "WithAVeryLongNameIndeedThatGoesOnAndOn"
        } else {
            ""
        };
        m.states.push(State {
            name: name(&format!("S{i}{long}")),
            start: starts.contains(&i),
            default_start: starts.first() == Some(&i),
            is_final: finals.contains(&i),
            ..State::default()
        });
    }
    for e in 0..events {
        m.events.push(Event {
            name: name(&format!("E{e}")),
            docs: Vec::new(),
            timeout: None,
            fields: Vec::new(),
            role: None,
            turn: None,
            role_span: None,
        });
    }
    for &(from, event, to) in edges {
        m.transitions.push(Transition {
            from: StateId(from as u32),
            event: event.map(|e| fsmc_model::spec::EventId(e as u32)),
            to: StateId(to as u32),
            guards: ThinVec::new(),
            actions: ThinVec::new(),
            persist: None,
            docs: ThinVec::new(),
            span: Span::default(),
            event_span: Span::default(),
            to_span: Span::default(),
        });
    }
    m
}

fn draw_all(m: &Machine) {
    let spec = fsmc_model::spec::Spec::default();
    let target = Target::machine(&spec, m);
    for direction in [TB, Direction::LeftToRight] {
        let svg = export::svg::write(&target, direction).unwrap_or_else(|e| panic!("{e}"));
        assert!(svg.ends_with("</svg>\n"));
        roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("not XML: {e}"));
        export::html::write(&target, direction).unwrap_or_else(|e| panic!("{e}"));
        let _ = (
            export::dot::write(&target, direction),
            export::mermaid::write(&target, direction),
        );
    }
    let _ = (export::yaml::write_machine(m), export::fsm::write(m, &[]));
}

#[test]
fn odd_shapes_are_drawn() {
    draw_all(&machine(0, 0, &[], &[], &[]));
    draw_all(&machine(1, 0, &[], &[], &[]));
    draw_all(&machine(1, 1, &[(0, Some(0), 0)], &[0], &[]));
    draw_all(&machine(
        3,
        1,
        &[(0, Some(0), 0), (1, Some(0), 1), (2, Some(0), 2)],
        &[],
        &[1],
    ));
    draw_all(&machine(
        4,
        0,
        &[(0, None, 1), (1, None, 0), (2, None, 3)],
        &[0, 2],
        &[3],
    ));
    draw_all(&machine(
        2,
        3,
        &[
            (0, Some(0), 1),
            (0, Some(1), 1),
            (0, Some(2), 1),
            (1, Some(0), 0),
        ],
        &[0],
        &[],
    ));
}

#[test]
fn random_shapes_are_drawn() {
    let mut rng = Lcg(7);
    for round in 0..150 {
        let states = 1 + rng.below(if round % 10 == 0 { 40 } else { 9 });
        let events = 1 + rng.below(5);
        let edges: Vec<_> = (0..rng.below(states * 3 + 1))
            .map(|_| {
                (
                    rng.below(states),
                    if rng.below(6) == 0 {
                        None
                    } else {
                        Some(rng.below(events))
                    },
                    rng.below(states),
                )
            })
            .collect();
        let starts: Vec<usize> = (0..rng.below(3)).map(|_| rng.below(states)).collect();
        let finals: Vec<usize> = (0..rng.below(3)).map(|_| rng.below(states)).collect();
        draw_all(&machine(states, events, &edges, &starts, &finals));
    }
}

#[test]
fn a_large_machine_is_drawn_in_reasonable_time() {
    for n in [50usize, 100, 200, 400, 600] {
        // A typical round-based app: a main path, retries on each round, some skips and a reset back.
        let edges: Vec<_> = (0..n)
            .flat_map(|i| {
                [
                    (i, Some(0), (i + 1) % n),
                    (i, Some(1), i),
                    (i, Some(2), (i + 2 + i % 3).min(n - 1)),
                ]
            })
            .chain((0..n).step_by(10).map(|i| (i, Some(3), 0)))
            .collect();
        let started = std::time::Instant::now();
        draw_all(&machine(n, 4, &edges, &[0], &[n - 1]));
        eprintln!(
            "{n} states, {} transitions drawn in {:?}",
            edges.len(),
            started.elapsed()
        );
    }
}

#[test]
fn a_machine_too_large_to_lay_out_is_refused_with_a_way_out() {
    // Transitions to random states: every long arrow crosses every layer between its ends, so the layered
    // layout grows with the square of the states. DOT and Mermaid still work, in linear time.
    let n = 2_000;
    let mut rng = Lcg(3);
    let edges: Vec<_> = (0..n)
        .flat_map(|i| [(i, Some(0), (i + 1) % n), (i, Some(1), rng.below(n))])
        .collect();
    let m = machine(n, 2, &edges, &[0], &[]);
    let spec = fsmc_model::spec::Spec::default();
    let target = Target::machine(&spec, &m);
    let started = std::time::Instant::now();
    for result in [
        export::svg::write(&target, TB),
        export::html::write(&target, TB),
    ] {
        let message = result.expect_err("refused");
        assert!(
            message.contains("too large to draw as SVG or HTML")
                && message.contains("--format dot")
                && message.contains("--format mermaid"),
            "{message}"
        );
    }
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "refusing took {:?}",
        started.elapsed()
    );
    assert_eq!(
        export::dot::write(&target, TB).matches(" -> ").count(),
        edges.len() + 1
    );
}
