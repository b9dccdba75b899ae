//! Worker threads that give up on a job that never answers.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

/// Run `job(0..n)` on `threads` worker threads; results in index order.
/// A job that has not answered `timeout` after it started (a stat on a
/// dead network mount blocks forever, and no thread can be interrupted) is
/// given up as `None`: its thread is left behind, a fresh worker takes over
/// its share, and the process exits without waiting for it.
pub fn parallel_with_timeout<T: Send + 'static>(
    n: usize,
    threads: usize,
    timeout: Duration,
    job: Arc<dyn Fn(usize) -> T + Send + Sync>,
    progress: &dyn Fn(),
) -> Vec<Option<T>> {
    let next = Arc::new(AtomicUsize::new(0));
    let started: Arc<Mutex<Vec<Option<Instant>>>> = Arc::new(Mutex::new(vec![None; n]));
    let (tx, rx) = mpsc::channel::<(usize, T)>();
    let spawn = || {
        let (next, started, tx, job) = (next.clone(), started.clone(), tx.clone(), job.clone());
        std::thread::spawn(move || {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                started.lock().expect("no panics under this lock")[i] = Some(Instant::now());
                let out = job(i);
                if tx.send((i, out)).is_err() {
                    break; // the audit is over
                }
            }
        });
    };
    for _ in 0..threads.clamp(1, n.max(1)) {
        spawn();
    }
    let mut results: Vec<Option<T>> = (0..n).map(|_| None).collect();
    let mut done = vec![false; n];
    let mut remaining = n;
    while remaining > 0 {
        match rx.recv_timeout(Duration::from_millis(200)) {
            Ok((i, out)) => {
                if !done[i] {
                    results[i] = Some(out);
                    done[i] = true;
                    remaining -= 1;
                    progress();
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let now = Instant::now();
                let stuck: Vec<usize> = started
                    .lock()
                    .expect("no panics under this lock")
                    .iter()
                    .enumerate()
                    .filter(|(i, s)| {
                        !done[*i] && s.is_some_and(|t| now.duration_since(t) > timeout)
                    })
                    .map(|(i, _)| i)
                    .collect();
                for i in stuck {
                    done[i] = true;
                    remaining -= 1;
                    progress();
                    spawn(); // replace the blocked worker
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    results
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_that_never_answers_is_given_up() {
        let job: Arc<dyn Fn(usize) -> usize + Send + Sync> = Arc::new(|i| {
            if i == 3 {
                loop {
                    std::thread::park(); // as a stat on a dead mount
                }
            }
            i * 10
        });
        let calls = AtomicUsize::new(0);
        let start = Instant::now();
        let out = parallel_with_timeout(8, 2, Duration::from_millis(300), job, &|| {
            calls.fetch_add(1, Ordering::Relaxed);
        });
        assert!(start.elapsed() < Duration::from_secs(5));
        assert_eq!(out.len(), 8);
        for (i, r) in out.iter().enumerate() {
            assert_eq!(*r, if i == 3 { None } else { Some(i * 10) });
        }
        assert_eq!(calls.load(Ordering::Relaxed), 8);
    }

    #[test]
    fn every_job_runs_once_in_order() {
        let job: Arc<dyn Fn(usize) -> usize + Send + Sync> = Arc::new(|i| i + 1);
        let out = parallel_with_timeout(100, 4, Duration::from_secs(10), job, &|| {});
        assert_eq!(out, (1..=100).map(Some).collect::<Vec<_>>());
        let none: Arc<dyn Fn(usize) -> usize + Send + Sync> = Arc::new(|i| i);
        assert!(parallel_with_timeout(0, 4, Duration::from_secs(1), none, &|| {}).is_empty());
    }
}
