//! Unit tests of `crate::controllers::node_lifecycle::rate_limited_queue`.

use super::*;

#[test]
fn token_bucket_hands_out_tokens_at_its_rate() {
    #[rustfmt::skip]
    let cases: &[(&str, f64, &[Millis], &[bool])] = &[
        ("the first token is available at once", 0.1, &[0], &[true]),
        ("a second token waits 1/qps", 0.1, &[0, 9_999, 10_000], &[true, false, true]),
        ("tokens do not pile up beyond the burst of 1", 0.1, &[0, 60_000, 60_001], &[true, true, false]),
        ("the secondary rate waits 100 s", 0.01, &[0, 99_999, 100_000], &[true, false, true]),
        ("a zero rate never accepts", 0.0, &[0, 1_000_000], &[false, false]),
    ];
    for (name, qps, times, want) in cases {
        let mut b = TokenBucket::new(*qps, 0);
        let got: Vec<bool> = times.iter().map(|t| b.try_accept(*t)).collect();
        assert_eq!(&got, want, "{name}");
    }
}

#[test]
fn queue_is_unique_until_removed() {
    let mut q = RateLimitedTimedQueue::new(1000.0, 0);
    assert!(q.add(1, 0), "first add");
    assert!(!q.add(1, 0), "second add of the same node is refused");
    let mut seen = Vec::new();
    q.try_process(0, |n| {
        seen.push(n);
        Ok(())
    });
    assert_eq!(seen, vec![1], "processed once");
    assert!(!q.add(1, 5), "a processed node stays in the set");
    assert!(q.remove(1), "remove clears the set");
    assert!(q.add(1, 5), "and it can be added again");
}

#[test]
fn queue_waits_for_tokens_in_order() {
    let mut q = RateLimitedTimedQueue::new(0.1, 0);
    q.add(3, 0);
    q.add(1, 0);
    let mut seen = Vec::new();
    for t in [0, 5_000, 10_000] {
        q.try_process(t, |n| {
            seen.push((t, n));
            Ok(())
        });
    }
    assert_eq!(seen, vec![(0, 3), (10_000, 1)]);
    assert_eq!(q.next_due(), None, "nothing left");
}

#[test]
fn swap_limiter_drains_the_new_bucket_when_the_old_one_was_waiting() {
    let mut q = RateLimitedTimedQueue::new(0.1, 0);
    assert!(q.limiter.clone().try_accept(0), "full at start");
    q.limiter.try_accept(0);
    q.swap_limiter(0.01, 1_000);
    assert_eq!(
        q.limiter().next_token_at(),
        Some(101_000),
        "drained: next token 100 s later"
    );
    q.swap_limiter(0.0, 2_000);
    assert!(q.limiter().is_never(), "zero stops evictions");
    q.swap_limiter(0.1, 3_000);
    assert_eq!(
        q.limiter().next_token_at(),
        Some(13_000),
        "coming back from never drains too"
    );
}
