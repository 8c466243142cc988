//! Resource quantities (`resource.Quantity`) as the integers the scheduler counts in.

pub use crate::defaults::parse_quantity_nanos;

const NANOS_PER_MILLI: i128 = 1_000_000;
const NANOS_PER_UNIT: i128 = 1_000_000_000;

fn ceil_div(n: i128, d: i128) -> i128 {
    let q = n / d;
    if n % d > 0 { q + 1 } else { q }
}

fn clamp(n: i128) -> i64 {
    i64::try_from(n).unwrap_or(if n < 0 { i64::MIN } else { i64::MAX })
}

/// Upstream `Quantity.MilliValue()`: thousandths, rounded up. `None` if the string does not parse.
pub fn milli_value(q: &str) -> Option<i64> {
    parse_quantity_nanos(q).map(|n| clamp(ceil_div(n, NANOS_PER_MILLI)))
}

/// Upstream `Quantity.Value()`: whole units, rounded up. `None` if the string does not parse.
pub fn value(q: &str) -> Option<i64> {
    parse_quantity_nanos(q).map(|n| clamp(ceil_div(n, NANOS_PER_UNIT)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn milli_and_whole_values_round_up_as_upstream() {
        #[rustfmt::skip]
        let cases = [
            ("half a core", "500m", Some(500), Some(1)),
            ("one core", "1", Some(1000), Some(1)),
            ("a decimal", "0.5", Some(500), Some(1)),
            ("one nano-core rounds up to a milli", "1n", Some(1), Some(1)),
            ("binary suffix", "1Gi", Some(1_073_741_824_000), Some(1_073_741_824)),
            ("decimal suffix", "128M", Some(128_000_000_000), Some(128_000_000)),
            ("exponent", "1e3", Some(1_000_000), Some(1000)),
            ("zero", "0", Some(0), Some(0)),
            ("garbage", "lots", None, None),
        ];
        for (name, q, milli, whole) in cases {
            assert_eq!(milli_value(q), milli, "{name}: milli");
            assert_eq!(value(q), whole, "{name}: value");
        }
    }
}
