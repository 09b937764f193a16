//! The megablock pool's own threads, which do its slow work with the
//! operating system beside the mutators rather than in a GC's pause:
//! `returner` gives free megablocks' memory back (See Note [Returning
//! memory off the pause] there), `pretouch` touches fresh megablocks
//! before the heap takes them (See Note [Touching fresh memory off the
//! pause] there). Each runs on a `PoolThread`, defined here.
//!
//! Invariant kept: when a `PoolThread` is dropped, the thread has finished
//! every request sent to it and has ended, so the pool may then unmap the
//! memory the requests named.

pub mod pretouch;
pub mod returner;

use std::sync::mpsc::{channel, Sender};
use std::thread::JoinHandle;

/// A named thread that runs one function on each request sent to it.
#[derive(Debug)]
pub struct PoolThread<T> {
    requests: Option<Sender<T>>,
    thread: Option<JoinHandle<()>>,
}

impl<T: Send + 'static> PoolThread<T> {
    /// A thread called `name` that runs `each` on every request, in order;
    /// None if the OS will not start one (the caller then does the work
    /// itself).
    pub fn start(name: &str, mut each: impl FnMut(T) + Send + 'static) -> Option<PoolThread<T>> {
        let (tx, rx) = channel::<T>();
        let thread = std::thread::Builder::new()
            .name(name.into())
            .spawn(move || {
                for request in rx {
                    each(request);
                }
            })
            .ok()?;
        Some(PoolThread { requests: Some(tx), thread: Some(thread) })
    }

    /// Hand the thread `request`.
    pub fn send(&self, request: T) {
        let tx = self.requests.as_ref().expect("a pool thread takes requests until it is dropped");
        tx.send(request).expect("a pool thread runs until it is dropped");
    }
}

/// Every request is done before whoever sent them goes on (to unmap).
impl<T> Drop for PoolThread<T> {
    fn drop(&mut self) {
        drop(self.requests.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
