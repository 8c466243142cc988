//! A small seeded mutator for the replay test: libFuzzer's cheaper moves without its coverage
//! feedback, so a run is the same on every machine. From a seed input it stacks one to four of:
//! flip a bit, set a byte (often an interesting one), insert bytes, erase a range, duplicate a
//! range, splice in a piece of another input, insert a token from the dictionary.

/// Tokens the targets' grammars care about (YAML, JSON, patch directives, selectors, HTTP).
const DICTIONARY: &[&[u8]] = &[
    b"\n---\n",
    b"\n=====\n",
    b"- ",
    b": ",
    b"{}",
    b"[]",
    b"null",
    b"true",
    b"\"",
    b"\\",
    b"&a ",
    b"*a",
    b"<<: ",
    b"!!binary ",
    b"kind: List\nitems:\n",
    b"$patch",
    b"\"$patch\":\"bogus\"",
    b"\"$setElementOrder/containers\":",
    b"\"$retainKeys\":",
    b"\"$deleteFromPrimitiveList/finalizers\":",
    b"9223372036854775808",
    b"-1",
    b"1e999",
    b"0.5",
    b" in (",
    b" notin (",
    b"!=",
    b"==",
    b",",
    b":NoSchedule",
    b":NoExecute-",
    b"=",
    b"?watch=true",
    b"&timeoutSeconds=",
    b"&labelSelector=",
    b"&fieldSelector=",
    b"\nContent-Type: application/strategic-merge-patch+json",
    b"\nContent-Type: application/json-patch+json",
    b"\xff",
    b"\0",
];

/// Bytes worth setting: delimiters of the formats, and the extremes.
const INTERESTING: &[u8] = b"\0\x7f\xff\n\r\t {}[]:,\"'-=!()&?/\\#*$%";

/// A deterministic pseudo-random source (splitmix64).
#[derive(Debug, Clone)]
pub struct Mutator {
    state: u64,
}

impl Mutator {
    /// A mutator whose every choice follows from `seed`.
    pub fn new(seed: u64) -> Mutator {
        Mutator { state: seed }
    }

    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number below `n` (`0` when `n` is `0`).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    /// A mutant of `input`; `others` are spliced from.
    pub fn mutate(&mut self, input: &[u8], others: &[Vec<u8>]) -> Vec<u8> {
        let mut out = input.to_vec();
        let moves = 1 + self.below(4);
        for _ in 0..moves {
            self.one(&mut out, others);
        }
        out
    }

    fn one(&mut self, out: &mut Vec<u8>, others: &[Vec<u8>]) {
        let len = out.len();
        match self.below(7) {
            0 if len > 0 => {
                let i = self.below(len);
                out[i] ^= 1 << self.below(8);
            }
            1 if len > 0 => {
                let i = self.below(len);
                out[i] = if self.below(2) == 0 {
                    INTERESTING[self.below(INTERESTING.len())]
                } else {
                    self.next() as u8
                };
            }
            2 => {
                let i = self.below(len + 1);
                let n = 1 + self.below(4);
                let bytes: Vec<u8> = (0..n).map(|_| self.next() as u8).collect();
                out.splice(i..i, bytes);
            }
            3 if len > 0 => {
                let i = self.below(len);
                let n = 1 + self.below((len - i).min(64));
                out.drain(i..i + n);
            }
            4 if len > 0 => {
                let i = self.below(len);
                let n = 1 + self.below((len - i).min(64));
                let piece = out[i..i + n].to_vec();
                let at = self.below(len + 1);
                out.splice(at..at, piece);
            }
            5 if !others.is_empty() => {
                let other = &others[self.below(others.len())];
                if other.is_empty() {
                    return;
                }
                let i = self.below(other.len());
                let n = 1 + self.below((other.len() - i).min(256));
                let at = self.below(len + 1);
                out.splice(at..at, other[i..i + n].iter().copied());
            }
            _ => {
                let token = DICTIONARY[self.below(DICTIONARY.len())];
                let at = self.below(len + 1);
                out.splice(at..at, token.iter().copied());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_mutants() {
        let others = vec![b"other input".to_vec()];
        let run = |seed| {
            let mut m = Mutator::new(seed);
            (0..50)
                .map(|_| m.mutate(b"kind: Pod", &others))
                .collect::<Vec<_>>()
        };
        assert_eq!(run(7), run(7), "a run is reproducible");
        assert_ne!(run(7), run(8), "another seed, other mutants");
    }

    #[test]
    fn an_empty_input_still_mutates() {
        let mut m = Mutator::new(1);
        let grown = (0..20).any(|_| !m.mutate(b"", &[]).is_empty());
        assert!(grown, "insertions give an empty input bytes");
    }
}
