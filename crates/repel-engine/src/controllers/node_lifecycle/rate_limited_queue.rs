//! Upstream `pkg/controller/nodelifecycle/scheduler/rate_limited_queue.go` (v1.35) on the
//! simulated clock: a token bucket with burst 1 and the unique timed queue that the per-zone
//! `NoExecute` tainters drain.

use std::collections::BTreeSet;

use crate::clock::Millis;
use crate::cluster::NodeId;

/// Client-go's `NewTokenBucketRateLimiter(qps, 1)` (`EvictionRateLimiterBurst`), or
/// `NewFakeNeverRateLimiter` for `qps <= 0`, deterministic on the simulated clock.
///
/// 1. The bucket starts full: the first token is available at once.
/// 2. With burst 1 the state is one instant, `full_at`: a token is there when `now >= full_at`;
///    taking it moves `full_at` to `now + 1000 / qps` ms (rounded to the millisecond).
/// 3. The "never" limiter refuses every request.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenBucket {
    qps: f64,
    interval: Option<Millis>,
    full_at: Millis,
}

impl TokenBucket {
    /// A full bucket refilling at `qps` tokens a second (never, for `qps <= 0`).
    pub fn new(qps: f64, now: Millis) -> Self {
        let interval = (qps > 0.0).then(|| (1000.0 / qps).round() as Millis);
        TokenBucket {
            qps: if qps > 0.0 { qps } else { 0.0 },
            interval,
            full_at: now,
        }
    }

    /// The rate in tokens a second (0 for the never limiter).
    pub fn qps(&self) -> f64 {
        self.qps
    }

    /// Whether it can ever hand out a token.
    pub fn is_never(&self) -> bool {
        self.interval.is_none()
    }

    /// When the next token is available, `None` for the never limiter.
    pub fn next_token_at(&self) -> Option<Millis> {
        self.interval.map(|_| self.full_at)
    }

    /// `TryAccept`: takes a token if one is there.
    pub fn try_accept(&mut self, now: Millis) -> bool {
        match self.interval {
            Some(interval) if now >= self.full_at => {
                self.full_at = now + interval;
                true
            }
            _ => false,
        }
    }
}

/// One queued node (upstream `TimedValue`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimedValue {
    /// The node.
    pub node: NodeId,
    /// When it was added.
    pub added_at: Millis,
    /// Not processed before this time.
    pub process_at: Millis,
    seq: u64,
}

/// Upstream `RateLimitedTimedQueue`: a `UniqueQueue` ordered by `ProcessAt` (ties in insertion
/// order, where Go's heap leaves them unspecified) drained through a [`TokenBucket`].
#[derive(Debug, Clone)]
pub struct RateLimitedTimedQueue {
    queue: Vec<TimedValue>,
    set: BTreeSet<NodeId>,
    limiter: TokenBucket,
    seq: u64,
}

impl RateLimitedTimedQueue {
    /// An empty queue with a full bucket at `qps`.
    pub fn new(qps: f64, now: Millis) -> Self {
        RateLimitedTimedQueue {
            queue: Vec::new(),
            set: BTreeSet::new(),
            limiter: TokenBucket::new(qps, now),
            seq: 0,
        }
    }

    /// The limiter.
    pub fn limiter(&self) -> &TokenBucket {
        &self.limiter
    }

    /// Whether nothing waits.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// The queued nodes in processing order.
    pub fn queued(&self) -> Vec<NodeId> {
        self.queue.iter().map(|v| v.node).collect()
    }

    /// The head (`Head`).
    pub fn head(&self) -> Option<&TimedValue> {
        self.queue.first()
    }

    fn push(&mut self, value: TimedValue) {
        let pos = self
            .queue
            .iter()
            .position(|v| (v.process_at, v.seq) > (value.process_at, value.seq))
            .unwrap_or(self.queue.len());
        self.queue.insert(pos, value);
    }

    /// `Add`: queues `node` with `ProcessAt = now` unless it was added and not removed since
    /// (a processed node stays in the set until [`RateLimitedTimedQueue::remove`]).
    pub fn add(&mut self, node: NodeId, now: Millis) -> bool {
        if !self.set.insert(node) {
            return false;
        }
        self.seq += 1;
        let seq = self.seq;
        self.push(TimedValue {
            node,
            added_at: now,
            process_at: now,
            seq,
        });
        true
    }

    /// `Remove`: drops `node` from the queue and the set, so it can be added again.
    pub fn remove(&mut self, node: NodeId) -> bool {
        if !self.set.remove(&node) {
            return false;
        }
        self.queue.retain(|v| v.node != node);
        true
    }

    /// Forgets deleted node `node` and moves the ids after it down one (repel's ids are
    /// positions; upstream queues names).
    pub fn node_removed(&mut self, node: NodeId) {
        self.remove(node);
        let shift = |n: NodeId| if n > node { n - 1 } else { n };
        for v in &mut self.queue {
            v.node = shift(v.node);
        }
        self.set = self.set.iter().map(|n| shift(*n)).collect();
    }

    /// `SwapLimiter` (v1.35):
    ///
    /// 1. the same QPS: nothing changes;
    /// 2. `qps <= 0`: the never limiter;
    /// 3. otherwise a new full bucket, drained at once if the old one had no token ("if we're
    ///    currently waiting on limiter, we drain the new one").
    pub fn swap_limiter(&mut self, qps: f64, now: Millis) {
        let qps = if qps > 0.0 { qps } else { 0.0 };
        if self.limiter.qps() == qps {
            return;
        }
        let mut new = TokenBucket::new(qps, now);
        if !new.is_never() && !self.limiter.try_accept(now) {
            new.try_accept(now);
        }
        self.limiter = new;
    }

    /// `Try`: while there is a head, take a token (stop when there is none), stop if the head
    /// is not due, else run `f` on it: `Ok(())` leaves it processed (still in the set), `Err(wait)`
    /// puts it back with `ProcessAt = now + wait`.
    pub fn try_process(&mut self, now: Millis, mut f: impl FnMut(NodeId) -> Result<(), Millis>) {
        while let Some(head) = self.queue.first().cloned() {
            if !self.limiter.try_accept(now) {
                break;
            }
            if now < head.process_at {
                break;
            }
            self.queue.remove(0);
            if let Err(wait) = f(head.node) {
                self.push(TimedValue {
                    process_at: now + wait,
                    ..head
                });
            }
        }
    }

    /// When the head can next be processed, if ever.
    pub fn next_due(&self) -> Option<Millis> {
        let head = self.queue.first()?;
        Some(self.limiter.next_token_at()?.max(head.process_at))
    }
}

#[cfg(test)]
mod tests;
