//! Parse time on hostile comment nesting: `n` block comments opened inside each other and never closed, each
//! holding a string with a glob (as when a machine whose strings name `prompts/*.jinja2` is commented out), for
//! `n` from 10 to 10,000. The time per `/*` stays flat when the parse is linear; it doubled with each `/*` when
//! pest read an unclosed nested comment a second time as text of the outer one.
//!
//! `cargo bench -p fsmc-benches --bench comments`.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use fsmc_base::source::FileId;
use std::hint::black_box;
use std::time::Duration;

/// A machine whose body ends in `n` nested comments that do not close.
fn hostile(n: usize) -> String {
    format!(
        "machine M {{\n    state A;\n{} */\n}}\n",
        "    /* \"prompts/*.jinja2\"\n".repeat(n)
    )
}

fn comments(c: &mut Criterion) {
    let mut group = c.benchmark_group("unclosed_comments");
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(2));
    for n in [10usize, 30, 1_000, 10_000] {
        let text = hostile(n);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &text, |b, text| {
            b.iter(|| {
                let (_, diags) = fsmc_syntax::parse(FileId(0), black_box(text));
                assert!(!diags.is_empty(), "the comments do not close");
                diags
            });
        });
    }
    group.finish();
}

criterion_group!(benches, comments);
criterion_main!(benches);
