//! Work shared among cores on large specs, with results that do not show it.
//!
//! Every function here returns exactly what doing the work in order on one thread returns: results are joined in
//! input order, never in the order threads finish. Small inputs (everything but large specs) stay on the calling
//! thread, where starting a thread would cost more than it saves.
//!
//! Work handed to another thread must not make did-you-mean suggestions: their budget is per thread
//! ([`crate::diag::did_you_mean`]), so which diagnostics get one would depend on the split.

/// At most this many threads share one piece of work: the checks are memory-bound past two or three, and each
/// run of a long body parsed by another thread than the first is copied once into the tree.
const MAX_THREADS: usize = 4;

/// How many threads may share work: one per core, up to [`MAX_THREADS`]. Asked once (the answer may take reading
/// the process's CPU quota).
pub fn threads() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(MAX_THREADS)
    })
}

/// Each thread gets at least this many items: below it, a thread's start and the join cost what it saves.
pub const MIN_ITEMS_PER_THREAD: usize = 32 * 1024;

/// What `f` appends to one vector for all of `items` at once, and `f` must append the same for the items in any
/// number of consecutive slices, one after the other (so it may keep state within a slice, such as the last
/// name it looked up); the slices are shared among threads when there are many items.
pub fn map_slices<T: Sync, U: Send>(items: &[T], f: impl Fn(&[T], &mut Vec<U>) + Sync) -> Vec<U> {
    let n = threads().min(items.len() / MIN_ITEMS_PER_THREAD).max(1);
    let mut out: Vec<U> = Vec::with_capacity(items.len());
    if n == 1 {
        f(items, &mut out);
        return out;
    }
    let size = items.len().div_ceil(n);
    let f = &f;
    std::thread::scope(|scope| {
        let mut slices = items.chunks(size);
        let first = slices.next().unwrap_or_default();
        let others: Vec<_> = slices
            .map(|slice| {
                let handle = std::thread::Builder::new().spawn_scoped(scope, move || {
                    let mut part = Vec::with_capacity(slice.len());
                    f(slice, &mut part);
                    part
                });
                (slice, handle.ok())
            })
            .collect();
        f(first, &mut out);
        for (slice, handle) in others {
            match handle {
                Some(h) => out.extend(
                    h.join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                ),
                // No thread could be started: this one does the slice.
                None => f(slice, &mut out),
            }
        }
        out
    })
}

/// `(a(), b())`, with `a` on another thread when `large` (and a thread can be started).
pub fn join<A, B, RA, RB>(large: bool, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB,
    RA: Send,
{
    if !large || threads() == 1 {
        return (a(), b());
    }
    // The closure waits here until the other thread takes it, so that it can still run on this one if no thread
    // can be started.
    let cell = std::sync::Mutex::new(Some(a));
    let take = || cell.lock().ok().and_then(|mut a| a.take());
    let (ra, rb) = std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new().spawn_scoped(scope, || take().map(|a| a()));
        let rb = b();
        let ra = match spawned {
            Ok(h) => h
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => None,
        };
        (ra, rb)
    });
    match ra.or_else(|| take().map(|a| a())) {
        Some(ra) => (ra, rb),
        // The other thread took the closure, so it returned its result: this is never reached.
        None => unreachable!("`join`'s other thread took its work and gave no result"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_are_joined_in_the_order_of_the_input() {
        for len in [
            0,
            1,
            MIN_ITEMS_PER_THREAD - 1,
            2 * MIN_ITEMS_PER_THREAD + 7,
            5 * MIN_ITEMS_PER_THREAD,
        ] {
            let items: Vec<u64> = (0..len as u64).collect();
            // Each slice numbers its items from its own start: joined in order, the numbers restart where the
            // slices begin, and the values follow the input.
            let out = map_slices(&items, |slice, out| {
                out.extend(slice.iter().enumerate().map(|(i, x)| (i as u64, x * 3 + 1)))
            });
            assert_eq!(out.len(), items.len());
            assert!(out.iter().zip(&items).all(|((_, y), x)| *y == x * 3 + 1));
            assert_eq!(out.first().map(|p| p.0), items.first().map(|_| 0));
        }
    }

    #[test]
    fn join_returns_both_results_in_place() {
        for large in [false, true] {
            let v = [1, 2, 3];
            let (a, b) = join(large, || v.iter().sum::<i32>(), || v.len());
            assert_eq!((a, b), (6, 3));
        }
    }
}
