//! The layout on its own, without the drawing around it: state machines of 100, 250 and 500 states shaped as
//! the exporters see them (a chain of rounds with retries, skips and a reset every ten rounds, and arrows to
//! random states, four per state), and the refusal of one past the bound.
//!
//! `cargo bench -p fsmc-layout` (a criterion filter selects some: `-- 'layout/chain'`).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use fsmc_layout::{Direction, EdgeIn, Graph, NodeIn, Refusal, Size, lay_out};
use fsmc_testkit::Lcg;
use std::hint::black_box;
use std::time::Duration;

/// A state's box and a label's, about as wide as the exporters make them for names and events.
fn state(rng: &mut Lcg) -> NodeIn {
    NodeIn {
        size: Size {
            w: 80. + rng.below(140) as f64,
            h: 38.,
        },
        cluster: None,
    }
}

fn label(rng: &mut Lcg) -> Option<Size> {
    Some(Size {
        w: 40. + rng.below(120) as f64,
        h: 15.,
    })
}

/// Rounds in a chain, each with a retry (a self-loop), every third with a skip over the next, and every tenth
/// with a reset to the start.
fn chain(states: usize) -> Graph {
    let mut rng = Lcg(7);
    let nodes = (0..states).map(|_| state(&mut rng)).collect();
    let mut edges = Vec::new();
    for i in 0..states {
        let mut edge = |to: usize| EdgeIn {
            from: i,
            to,
            label: label(&mut rng),
        };
        edges.push(edge(i));
        if i + 1 < states {
            edges.push(edge(i + 1));
        }
        if i % 3 == 0 && i + 2 < states {
            edges.push(edge(i + 2));
        }
        if i % 10 == 9 {
            edges.push(edge(0));
        }
    }
    Graph {
        nodes,
        edges,
        roots: vec![0],
    }
}

/// Four arrows from each state to random states.
fn random(states: usize) -> Graph {
    let mut rng = Lcg(11);
    let nodes = (0..states).map(|_| state(&mut rng)).collect();
    let edges = (0..4 * states)
        .map(|i| EdgeIn {
            from: i / 4,
            to: rng.below(states),
            label: label(&mut rng),
        })
        .collect();
    Graph {
        nodes,
        edges,
        roots: vec![0],
    }
}

fn layout(c: &mut Criterion) {
    let mut group = c.benchmark_group("layout");
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(4));
    for (shape, make) in [("chain", chain as fn(usize) -> Graph), ("random", random)] {
        for states in [100, 250, 500] {
            let g = make(states);
            group.throughput(Throughput::Elements(g.edges.len() as u64));
            group.bench_with_input(BenchmarkId::new(shape, states), &g, |b, g| {
                b.iter(|| black_box(lay_out(black_box(g), Direction::TopToBottom)))
            });
        }
    }
    // Past the bound: what refusing costs (ranking the states and adding up the arrows' lengths).
    let g = random(5_000);
    assert!(matches!(
        lay_out(&g, Direction::TopToBottom),
        Err(Refusal::TooLarge { .. })
    ));
    group.throughput(Throughput::Elements(g.edges.len() as u64));
    group.bench_with_input(BenchmarkId::new("refused", 5_000), &g, |b, g| {
        b.iter(|| black_box(lay_out(black_box(g), Direction::TopToBottom)))
    });
    group.finish();
}

criterion_group!(benches, layout);
criterion_main!(benches);
