//! `fsmc graph` on synthetic specs of about 1k, 10k and 100k transitions (250, 2,500 and 25,000 states):
//! each drawing format, from the checked model to the finished text, as the command produces it.
//!
//! `cargo bench -p fsmc-benches --bench graph` (a criterion filter selects some: `-- 'graph/1k/'`).
//!
//! DOT and Mermaid are linear in the spec. SVG and HTML are laid out as layered drawings, whose size is the
//! sum of the arrows' lengths in layers: for these specs, whose transitions go to random states, that is
//! quadratic in the states, and past the layout's bound (`MAX_LAYERED` layered nodes, about two seconds of
//! work) the drawing is refused with an error that points to DOT and Mermaid. At 10k and 100k transitions
//! SVG and HTML therefore measure that refusal (ranking the states and adding up the arrows' lengths, linear
//! as well); the output says which.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use fsmc::export::{self, Direction, Target};
use fsmc_benches::synth::{DEFAULT_SEED, Format, Synth};
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

/// One drawing of the target in `format`: its length, or 0 when the layout refused it.
fn draw(format: &str, target: &Target<'_>) -> usize {
    let direction = Direction::TopToBottom;
    match format {
        "dot" => export::dot::write(target, direction).len(),
        "mermaid" => export::mermaid::write(target, direction).len(),
        "svg" => export::svg::write(target, direction).map_or(0, |s| s.len()),
        _ => export::html::write(target, direction).map_or(0, |s| s.len()),
    }
}

fn graph(c: &mut Criterion) {
    let opts = fsmc_driver::Options::default();
    for (label, states) in [("1k", 250usize), ("10k", 2_500), ("100k", 25_000)] {
        let synth = Synth::generate(states, DEFAULT_SEED);
        let text = synth.write(Format::Fsm);
        let compilation =
            fsmc_driver::compile_str(Format::Fsm.file_name(), &text, Path::new("."), &opts);
        let Some(checked) = &compilation.checked else {
            panic!("{states} states: {:?}", compilation.diagnostics);
        };
        let target = export::select(checked, None).expect("one machine");
        let mut group = c.benchmark_group(format!("graph/{label}"));
        group.throughput(Throughput::Elements(synth.transitions.len() as u64));
        group.sample_size(10);
        group.warm_up_time(Duration::from_secs(1));
        group.measurement_time(Duration::from_secs(if states >= 25_000 { 8 } else { 4 }));
        for format in ["dot", "mermaid", "svg", "html"] {
            let mut noted = false;
            group.bench_with_input(BenchmarkId::from_parameter(format), &target, |b, target| {
                if !noted {
                    let size = draw(format, target);
                    eprintln!(
                        "graph/{label}/{format}: {} transitions, {}",
                        synth.transitions.len(),
                        if size == 0 {
                            "refused: too large to lay out (this measures the refusal)".to_string()
                        } else {
                            format!("{size} bytes")
                        }
                    );
                    noted = true;
                }
                b.iter(|| black_box(draw(format, black_box(target))));
            });
        }
        group.finish();
    }
}

criterion_group!(benches, graph);
criterion_main!(benches);
