//! Threads for work that is whole per item (pages held in memory, `ppl-eval`'s page pairs):
//! [`map_in_order`], and the thread count a run takes by default ([`default_threads`]).

use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::MAX_THREADS;

/// The threads a run uses when it is not told: one per core, at most [`MAX_THREADS`].
pub fn default_threads() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(MAX_THREADS)
}

/// `work` applied to every item on `threads` threads (each item on one thread, the items
/// taken in turn), the results in the items' order: the same for any thread count. With one
/// thread, or one item, everything runs on the calling thread. An error only when the system
/// refuses a thread (the threads already started finish the items first).
pub fn map_in_order<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    work: impl Fn(&T) -> R + Sync,
) -> io::Result<Vec<R>> {
    let threads = threads.clamp(1, MAX_THREADS).min(items.len().max(1));
    if threads == 1 {
        return Ok(items.iter().map(work).collect());
    }
    let next = AtomicUsize::new(0);
    let worker = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else {
                return done;
            };
            done.push((i, work(item)));
        }
    };
    let mut slots: Vec<Option<R>> = Vec::new();
    slots.resize_with(items.len(), || None);
    let started = std::thread::scope(|scope| {
        let mut workers = Vec::with_capacity(threads);
        let mut refused = None;
        for _ in 0..threads {
            match std::thread::Builder::new()
                .name("ppl-pool".into())
                .spawn_scoped(scope, worker)
            {
                Ok(handle) => workers.push(handle),
                Err(e) => {
                    refused = Some(e);
                    break;
                }
            }
        }
        for handle in workers {
            // A worker only panics on a bug: raise it again rather than hide it.
            let done = handle
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p));
            for (i, result) in done {
                slots[i] = Some(result);
            }
        }
        refused.map_or(Ok(()), Err)
    });
    started?;
    Ok(slots
        .into_iter()
        .map(|slot| slot.expect("every item was taken by a worker"))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_the_items_order_for_any_thread_count() {
        let items: Vec<u64> = (0..1000).collect();
        let square = |x: &u64| x * x;
        let expected: Vec<u64> = items.iter().map(square).collect();
        for threads in [0, 1, 2, 3, 8, 5000] {
            assert_eq!(map_in_order(&items, threads, square).unwrap(), expected);
        }
        assert!(map_in_order(&[] as &[u64], 4, square).unwrap().is_empty());
    }
}
