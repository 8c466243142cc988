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
    /// one back until one keeps its item: about half of them on average.
    pub fn reservoir(&mut self, k: usize) -> Option<usize> {
        let start = self.0;
        let draw = |i: u64| Rng(start.wrapping_add(GAMMA.wrapping_mul(i - 1))).next_u64();
        let picked = (1..=k as u64).rev().find(|&i| draw(i) % i == 0);
        self.0 = start.wrapping_add(GAMMA.wrapping_mul(k as u64));
        picked.map(|i| (i - 1) as usize)
    }
}

/// SplitMix64's increment.
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

#[cfg(test)]
mod tests {
    use super::Rng;

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
