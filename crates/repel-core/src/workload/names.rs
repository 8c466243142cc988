//! Generated names as upstream draws them: the random suffix alphabet, FNV-1a and
//! `pod-template-hash` (after upstream `staging/src/k8s.io/apiserver/pkg/storage/names/generate.go`,
//! `k8s.io/apimachinery/pkg/util/rand` and `pkg/controller/controller_utils.go`
//! `ComputeHash`, v1.35).

use super::*;

/// A small deterministic generator (SplitMix64) for name suffixes.
#[derive(Debug, Clone)]
pub struct NameRng(u64);

impl NameRng {
    /// A generator for `seed` and a stream name (e.g. the owner's name), so names do not
    /// depend on the order workloads are read in.
    pub fn new(seed: u64, stream: &str) -> Self {
        NameRng(seed ^ u64::from(fnv32a(stream.as_bytes())).wrapping_mul(0x9E37_79B9_7F4A_7C15))
    }

    pub(super) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// `n` characters of [`NAME_ALPHABET`], as upstream `utilrand.String(n)`.
    pub fn suffix(&mut self, n: usize) -> String {
        (0..n).map(|_| char::from(self.letter())).collect()
    }

    /// One character of [`NAME_ALPHABET`], as [`NameRng::suffix`] draws each.
    pub(super) fn letter(&mut self) -> u8 {
        NAME_ALPHABET[(self.next() % NAME_ALPHABET.len() as u64) as usize]
    }
}

/// FNV-1a, 32 bits.
pub fn fnv32a(bytes: &[u8]) -> u32 {
    fnv32a_on(0x811c_9dc5, bytes)
}

/// FNV-1a's state `h` after `bytes` (the hash of a stream, a piece at a time).
pub(super) fn fnv32a_on(h: u32, bytes: &[u8]) -> u32 {
    bytes
        .iter()
        .fold(h, |h, b| (h ^ u32::from(*b)).wrapping_mul(0x0100_0193))
}

/// Upstream `rand.SafeEncodeString`: each byte mapped into [`NAME_ALPHABET`].
pub fn safe_encode_string(s: &str) -> String {
    s.bytes()
        .map(|b| NAME_ALPHABET[b as usize % NAME_ALPHABET.len()] as char)
        .collect()
}

/// The `pod-template-hash` of a template (see the module docs for how it differs from upstream).
pub fn pod_template_hash(template: &PodTemplateSpec) -> String {
    /// FNV-1a over what is written (the JSON, as it is written, without holding it).
    struct Fnv(u32);
    impl std::io::Write for Fnv {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 = fnv32a_on(self.0, buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut h = Fnv(fnv32a(&[]));
    // A template serialises; if it did not, the hash is of what was written, as `to_vec`'s
    // empty output was before.
    if serde_json::to_writer(&mut h, template).is_err() {
        h = Fnv(fnv32a(&[]));
    }
    safe_encode_string(&h.0.to_string())
}
