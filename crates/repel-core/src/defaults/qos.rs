//! Pod QoS class (upstream `ComputePodQOS`, v1.35) and the `resource.Quantity` arithmetic it needs.

use std::collections::BTreeMap;
use std::fmt;

use k8s_openapi::api::core::v1::{Pod, PodSpec};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

/// A pod's quality-of-service class, as in `status.qosClass`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum QosClass {
    /// Every container (or the pod level) sets cpu and memory limits, equal to the requests.
    Guaranteed,
    /// Some cpu or memory request or limit is set, but not enough for `Guaranteed`.
    Burstable,
    /// No cpu or memory request or limit greater than zero anywhere.
    BestEffort,
}

impl QosClass {
    /// Upstream's spelling: `Guaranteed`, `Burstable`, `BestEffort`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Guaranteed => "Guaranteed",
            Self::Burstable => "Burstable",
            Self::BestEffort => "BestEffort",
        }
    }
}

impl fmt::Display for QosClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The only resources that count for QoS.
const QOS_RESOURCES: [&str; 2] = ["cpu", "memory"];

/// Upstream `ComputePodQOS` (`pkg/apis/core/helper/qos`, Kubernetes v1.35), with the
/// `PodLevelResources` gate on (its default since v1.34). The rules:
///
/// 1. If the pod sets `spec.resources`, only the pod level counts: its cpu/memory requests and
///    limits, and `Guaranteed` needs a cpu and a memory limit there (an empty `limits` map does
///    not spoil `Guaranteed` by itself, as upstream).
/// 2. Otherwise every container and init container counts (ephemeral containers never do):
///    cpu and memory requests and limits are summed over them, and `Guaranteed` needs every one
///    of them to have a cpu limit and a memory limit.
/// 3. Only `cpu` and `memory` count, and a quantity counts only if it is greater than zero
///    (`"0"`, `"0m"`, `"-1"` are ignored; an unparsable one is ignored too).
/// 4. No counted request or limit at all: `BestEffort`.
/// 5. `Guaranteed` if still possible, every summed request equals the summed limit of the
///    same resource, and there are as many summed requests as limits; else `Burstable`.
///
/// The spec is read as given. The API server computes it after defaulting, which copies a
/// container's limits into missing requests; a limits-only container is therefore `Burstable`
/// here but `Guaranteed` once defaulted.
pub fn pod_qos(spec: &PodSpec) -> QosClass {
    let mut requests: BTreeMap<&str, i128> = BTreeMap::new();
    let mut limits: BTreeMap<&str, i128> = BTreeMap::new();
    let mut guaranteed = true;
    if let Some(pod_level) = &spec.resources {
        add_positive(&mut requests, pod_level.requests.as_ref());
        if pod_level.limits.as_ref().is_some_and(|l| !l.is_empty()) {
            let found = add_positive(&mut limits, pod_level.limits.as_ref());
            guaranteed &= found == QOS_RESOURCES.len();
        }
    } else {
        let init = spec.init_containers.iter().flatten();
        for container in spec.containers.iter().chain(init) {
            let res = container.resources.as_ref();
            add_positive(&mut requests, res.and_then(|r| r.requests.as_ref()));
            let found = add_positive(&mut limits, res.and_then(|r| r.limits.as_ref()));
            guaranteed &= found == QOS_RESOURCES.len();
        }
    }
    if requests.is_empty() && limits.is_empty() {
        return QosClass::BestEffort;
    }
    let matching = requests
        .iter()
        .all(|(name, req)| limits.get(name) == Some(req));
    if guaranteed && matching && requests.len() == limits.len() {
        QosClass::Guaranteed
    } else {
        QosClass::Burstable
    }
}

/// Upstream `GetPodQOS`: `status.qosClass` when it is set (its spelling kept as is), else
/// [`pod_qos`] of the spec. A pod without a spec is `BestEffort`.
pub fn get_pod_qos(pod: &Pod) -> String {
    match pod.status.as_ref().and_then(|s| s.qos_class.as_deref()) {
        Some(class) if !class.is_empty() => class.to_string(),
        _ => pod
            .spec
            .as_ref()
            .map_or(QosClass::BestEffort, pod_qos)
            .as_str()
            .to_string(),
    }
}

/// Adds the positive cpu/memory quantities of `list` into `sums`; returns how many of the two
/// resources were positive in `list` (upstream's `qosLimitsFound`).
fn add_positive(
    sums: &mut BTreeMap<&str, i128>,
    list: Option<&BTreeMap<String, Quantity>>,
) -> usize {
    let mut found = 0;
    for name in QOS_RESOURCES {
        let Some(q) = list.and_then(|l| l.get(name)) else {
            continue;
        };
        match parse_quantity_nanos(&q.0) {
            Some(n) if n > 0 => {
                found += 1;
                let sum = sums.entry(name).or_insert(0);
                *sum = sum.saturating_add(n);
            }
            _ => {}
        }
    }
    found
}

/// Whether a `resource.Quantity` string is greater than zero, as upstream's
/// `quantity.Cmp(resource.MustParse("0")) == 1`. Unparsable strings are not.
///
/// Examples: `"100m"`, `"1Gi"`, `"0.5"`, `"1e3"`, `"1n"` are; `"0"`, `"0m"`, `"0e3"`, `"-1"`,
/// `""`, `"1K"` (no such suffix) are not.
pub fn quantity_is_positive(q: &str) -> bool {
    parse_quantity_nanos(q).is_some_and(|n| n > 0)
}

/// The largest value upstream keeps when it parses through its slow path (`math.MaxInt64`).
const MAX_ALLOWED_UNITS: i128 = i64::MAX as i128;
const NANOS: i128 = 1_000_000_000;

/// A quantity string as nano-units, following upstream `ParseQuantity`: the number grammar
/// (`[+-]` digits, an optional `.` and digits, then a suffix), the suffixes (`n u m k M G T P E`,
/// `Ki Mi Gi Ti Pi Ei`, `e<int>`/`E<int>`), values rounded up to `1n`, and the `MaxInt64` cap of
/// upstream's slow path. `None` for strings upstream rejects. Values beyond about `1.7e29`
/// saturate (upstream stays exact there).
pub fn parse_quantity_nanos(s: &str) -> Option<i128> {
    if s.is_empty() {
        return None;
    }
    let b = s.as_bytes();
    let mut pos = 0;
    let negative = match b[0] {
        b'-' => {
            pos = 1;
            true
        }
        b'+' => {
            pos = 1;
            false
        }
        _ => false,
    };
    while pos < b.len() && b[pos] == b'0' {
        pos += 1;
    }
    let num_start = pos;
    while pos < b.len() && b[pos].is_ascii_digit() {
        pos += 1;
    }
    let num = &s[num_start..pos];
    let mut denom = "";
    if pos < b.len() && b[pos] == b'.' {
        pos += 1;
        let start = pos;
        while pos < b.len() && b[pos].is_ascii_digit() {
            pos += 1;
        }
        denom = &s[start..pos];
    }
    let (binary, exponent) = parse_suffix(&s[pos..])?;

    // value = digits * 10^(scale) * 2^(binary ? exponent : 0)
    let digits = num.bytes().chain(denom.bytes()).skip_while(|&c| c == b'0');
    let mut mantissa: i128 = 0;
    let mut scale: i64 = -(denom.len() as i64);
    let mut sticky = false; // a non-zero digit was dropped below the kept precision
    for c in digits {
        let d = i128::from(c - b'0');
        match mantissa.checked_mul(10).and_then(|m| m.checked_add(d)) {
            Some(m) => mantissa = m,
            None => {
                scale += 1;
                sticky |= d != 0;
            }
        }
    }
    let mut pow10 = scale + 9;
    let mut pow2 = 0;
    if binary {
        pow2 = exponent;
    } else {
        pow10 += exponent;
    }
    let mut nanos = mantissa;
    for _ in 0..pow2 {
        nanos = nanos.saturating_mul(2);
    }
    if pow10 >= 0 {
        for _ in 0..pow10.min(40) {
            nanos = nanos.saturating_mul(10);
        }
    } else if nanos != 0 || sticky {
        // Upstream rounds away from zero to whole nanos.
        let mut rest = false;
        for _ in 0..(-pow10).min(40) {
            rest |= nanos % 10 != 0;
            nanos /= 10;
        }
        if rest || sticky || nanos == 0 {
            nanos += 1;
        }
    }
    if slow_path(binary, exponent, num, denom) {
        nanos = nanos.min(MAX_ALLOWED_UNITS * NANOS);
    }
    Some(if negative { -nanos } else { nanos })
}

/// Upstream's suffix table: `(is_binary, exponent)`.
fn parse_suffix(suffix: &str) -> Option<(bool, i64)> {
    let dec = |e| Some((false, e));
    let bin = |e| Some((true, e));
    match suffix {
        "" => dec(0),
        "n" => dec(-9),
        "u" => dec(-6),
        "m" => dec(-3),
        "k" => dec(3),
        "M" => dec(6),
        "G" => dec(9),
        "T" => dec(12),
        "P" => dec(15),
        "E" => dec(18),
        "Ki" => bin(10),
        "Mi" => bin(20),
        "Gi" => bin(30),
        "Ti" => bin(40),
        "Pi" => bin(50),
        "Ei" => bin(60),
        _ => {
            let rest = suffix.strip_prefix(['e', 'E'])?;
            let digits = rest.strip_prefix(['+', '-']).unwrap_or(rest);
            if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
                return None;
            }
            rest.parse::<i64>().ok().map(|e| (false, e))
        }
    }
}

/// Whether upstream `ParseQuantity` leaves its int64 fast path (and so caps at `MaxInt64`).
fn slow_path(binary: bool, exponent: i64, num: &str, denom: &str) -> bool {
    let digits = (num.len() + denom.len()) as i64;
    if binary {
        // precision = 15 - len(num) - int(exponent*3/10) - 1; denominators always go slow.
        !denom.is_empty() || 15 - num.len() as i64 - exponent * 3 / 10 - 1 < 0
    } else {
        let scale = exponent - denom.len() as i64;
        18 - digits < 0 || scale < -9
    }
}

#[cfg(test)]
mod tests;
