//! A small seeded generator (SplitMix64): the same seed gives the same run.

/// SplitMix64.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GAMMA);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`), as Go's `rand.Intn`.
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next_u64() % n }
    }

    /// What reservoir sampling over `k` items picks when it draws `below(1)`, `below(2)`, …,
    /// `below(k)` and keeps item `i` whenever `below(i + 1)` is 0: the last such `i` (`None`
    /// when `k` is 0), leaving the generator where those `k` draws leave it.
    ///
    /// SplitMix64's state moves by a constant per draw, so the draws are read from the last
    /// one back until one keeps its item: about half of them on average, each tested by a
    /// multiplication (see [`divisible_in`]) rather than a division.
    pub fn reservoir(&mut self, k: usize) -> Option<usize> {
        let start = self.0;
        let draw = |i: u64| Rng(start.wrapping_add(GAMMA.wrapping_mul(i - 1))).next_u64();
        let table = divisors();
        let picked = (1..=k as u64)
            .rev()
            .find(|&i| divisible_in(table, draw(i), i));
        self.0 = start.wrapping_add(GAMMA.wrapping_mul(k as u64));
        picked.map(|i| (i - 1) as usize)
    }
}

/// SplitMix64's increment.
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// Divisors [`divisible_in`] tests without dividing: the reservoir's draws are tested against
/// every count up to the number of tied nodes, and a 64-bit division costs tens of cycles.
const DIVISORS: u64 = 8192;

/// A divisor `d = m · 2^shift` (`m` odd) as [`divisible_in`] uses it: `m`'s inverse modulo 2^64
/// and `u64::MAX / d`.
#[derive(Clone, Copy)]
struct Divisor {
    inverse: u64,
    limit: u64,
    shift: u32,
}

impl Divisor {
    fn of(d: u64) -> Self {
        let shift = d.trailing_zeros();
        let m = d >> shift;
        // Newton's iteration doubles the correct low bits of the inverse: m·m ≡ 1 (mod 8)
        // for odd m gives 3, then 6, 12, 24, 48, 96.
        let mut inverse = m;
        for _ in 0..5 {
            inverse = inverse.wrapping_mul(2u64.wrapping_sub(m.wrapping_mul(inverse)));
        }
        Divisor {
            inverse,
            limit: u64::MAX / d,
            shift,
        }
    }
}

/// The table of [`Divisor`]s `1..DIVISORS` (index 0 unused), built once.
fn divisors() -> &'static [Divisor] {
    static TABLE: std::sync::OnceLock<Vec<Divisor>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| (0..DIVISORS).map(|d| Divisor::of(d.max(1))).collect())
}

/// [`divisible_in`] with the table fetched.
#[cfg(test)]
fn divisible(x: u64, d: u64) -> bool {
    divisible_in(divisors(), x, d)
}

/// Whether `d` (`> 0`) divides `x`, i.e. `x % d == 0`, with the [`divisors`] table at hand.
/// For a table divisor `d = m · 2^s`, `x` is a multiple exactly when `x · m⁻¹` rotated right by
/// `s` is at most `u64::MAX / d` (Hacker's Delight 10-17): the rotation brings a non-zero low
/// bit to the top.
fn divisible_in(table: &[Divisor], x: u64, d: u64) -> bool {
    match table.get(d as usize) {
        Some(v) if d > 0 => x.wrapping_mul(v.inverse).rotate_right(v.shift) <= v.limit,
        _ => d != 0 && x.is_multiple_of(d),
    }
}

#[cfg(test)]
mod tests {
    use super::{DIVISORS, Rng, divisible};
    use proptest::prelude::*;

    #[test]
    fn divisible_is_the_remainder_test_for_every_table_divisor() {
        let mut r = Rng::new(7);
        for d in 1..DIVISORS + 3 {
            let mut xs = vec![0, 1, d - 1, d, d + 1, 2 * d, u64::MAX, u64::MAX - d];
            xs.extend((0..40).map(|_| r.next_u64()));
            xs.extend((0..40).map(|_| r.next_u64() / d * d));
            xs.extend((0..8).map(|_| (r.next_u64() / d * d).wrapping_add(1 + r.below(d))));
            for x in xs {
                assert_eq!(divisible(x, d), x % d == 0, "{x} by {d}");
            }
        }
    }

    proptest! {
        #[test]
        fn divisible_matches_the_remainder(x: u64, d in 1u64..20_000, k in 0u64..1_000_000) {
            prop_assert_eq!(divisible(x, d), x % d == 0);
            let m = k.wrapping_mul(d);
            prop_assert_eq!(divisible(m, d), m % d == 0);
        }
    }

    #[test]
    fn reservoir_is_the_draw_loop() {
        for seed in [0, 1, 42, u64::MAX - 3] {
            let mut a = Rng::new(seed);
            let mut b = Rng::new(seed);
            for k in [0usize, 1, 2, 3, 7, 64, 1000, 5, 1, 0, 300] {
                let mut want = None;
                for i in 0..k {
                    if a.below(i as u64 + 1) == 0 {
                        want = Some(i);
                    }
                }
                assert_eq!(b.reservoir(k), want, "seed {seed}, k {k}");
                // The generator is left where the loop leaves it.
                assert_eq!(b.next_u64(), a.next_u64(), "seed {seed}, k {k}");
            }
        }
    }
}
