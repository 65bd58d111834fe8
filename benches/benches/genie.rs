//! Genie sessions: how long one invoker state's DAG takes to run, by its size and shape, with tasks that finish
//! at once (what is measured is the session's own bookkeeping: starting each task when its dependencies are done,
//! recording outputs and progress). A chain (each task after the one before) and a fan (every task independent,
//! then one that needs them all), 1k and 10k tasks: the time per task stays flat when the runner is linear.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use fsmc_runtime::genie::{Flow, Invocation, Invoker, TaskCall, TaskFuture, TaskGraph};

fsmc_runtime::fsm!(
    r#"
    machine Bench: genie {
        event ask, advance;
        start default state Ask: user { template "benches/genie/ask.jinja2"; }
        state Work: invoker { template "benches/genie/work.jinja2"; runs work; }
        final state Done: user { template "benches/genie/done.jinja2"; }
        (Ask, ask) -> Work;
        (Work, advance) -> Done;
    }
"#
);

#[derive(Clone, Copy)]
enum Shape {
    Chain,
    Fan,
}

struct Instant {
    tasks: usize,
    shape: Shape,
}

impl Invoker<bench::Work> for Instant {
    fn plan(&self, _: &Invocation<'_, bench::Work>) -> TaskGraph {
        let mut g = TaskGraph::new();
        let mut previous = Vec::new();
        for i in 0..self.tasks {
            let after: Vec<usize> = match self.shape {
                Shape::Chain => previous.clone(),
                Shape::Fan if i + 1 == self.tasks => (0..i).collect(),
                Shape::Fan => Vec::new(),
            };
            previous = vec![g.add(format!("t{i}"), &after).expect("earlier tasks only")];
        }
        g
    }

    fn run(&self, call: TaskCall<bench::Work>) -> TaskFuture {
        Box::pin(async move { Ok(call.index.to_string()) })
    }
}

fn dag(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a Tokio runtime");
    let mut group = c.benchmark_group("genie_dag");
    group.sample_size(10);
    for (name, shape) in [("chain", Shape::Chain), ("fan", Shape::Fan)] {
        for tasks in [1_000, 10_000] {
            group.throughput(criterion::Throughput::Elements(tasks as u64));
            group.bench_with_input(BenchmarkId::new(name, tasks), &tasks, |b, &tasks| {
                b.iter(|| {
                    runtime.block_on(async {
                        let flow =
                            Flow::<bench::State>::new(Instant { tasks, shape }).expect("flow");
                        let (session, _) = flow.start(()).expect("start");
                        session.send("ask", "go").expect("the DAG starts");
                        let done = session.idle().await;
                        assert_eq!(done.state, "Done");
                    })
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, dag);
criterion_main!(benches);
