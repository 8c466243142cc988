//! Simulated time: milliseconds since a scenario's start, and Go's duration syntax.

/// A point in simulated time, in milliseconds since the start.
pub type Millis = i64;

/// Why a duration could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("time: invalid duration {0:?}")]
pub struct DurationError(pub String);

/// Parses Go's `time.ParseDuration` syntax (`300s`, `5m`, `1h30m`, `1.5h`, `500ms`, `0`) into
/// milliseconds, with Go's message for bad input. Negative durations are accepted as Go does.
pub fn parse_duration(s: &str) -> Result<Millis, DurationError> {
    let err = || DurationError(s.to_string());
    let (neg, mut rest) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    if rest == "0" {
        return Ok(0);
    }
    if rest.is_empty() {
        return Err(err());
    }
    let mut total = 0f64;
    while !rest.is_empty() {
        let num_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        if num_len == 0 {
            return Err(err());
        }
        let value: f64 = rest[..num_len].parse().map_err(|_| err())?;
        rest = &rest[num_len..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let unit = match &rest[..unit_len] {
            "ns" => 1e-6,
            "us" | "µs" | "μs" => 1e-3,
            "ms" => 1.0,
            "s" => 1_000.0,
            "m" => 60_000.0,
            "h" => 3_600_000.0,
            _ => return Err(err()),
        };
        rest = &rest[unit_len..];
        total += value * unit;
    }
    let ms = total.round() as Millis;
    Ok(if neg { -ms } else { ms })
}

/// The first point at or after `t` of a controller's pass grid (0, `period`, 2·`period`, …)
/// whose pass has not run: one after `last` when `last` is the grid point itself or later.
pub fn next_grid_point(t: Millis, period: Millis, last: Option<Millis>) -> Millis {
    let mut at = t.div_euclid(period) * period;
    if at < t {
        at += period;
    }
    match last {
        Some(l) if at <= l => l + period,
        _ => at,
    }
}

/// Seconds with up to three decimals, as the JSON contract's `at` and the timeline print them.
pub fn seconds(ms: Millis) -> f64 {
    ms as f64 / 1000.0
}

/// A short human form: `0s`, `45s`, `5m`, `1h0m30s`, `1m0.5s`.
pub fn human(ms: Millis) -> String {
    if ms == 0 {
        return "0s".to_string();
    }
    let sign = if ms < 0 { "-" } else { "" };
    let ms = ms.abs();
    let (h, m, s, frac) = (
        ms / 3_600_000,
        (ms / 60_000) % 60,
        (ms / 1000) % 60,
        ms % 1000,
    );
    let mut out = String::from(sign);
    if h > 0 {
        out.push_str(&format!("{h}h"));
    }
    if m > 0 || (h > 0 && (s > 0 || frac > 0)) {
        out.push_str(&format!("{m}m"));
    }
    if s > 0 || frac > 0 {
        if frac > 0 {
            out.push_str(&format!(
                "{s}.{}s",
                format!("{frac:03}").trim_end_matches('0')
            ));
        } else {
            out.push_str(&format!("{s}s"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_durations() {
        #[rustfmt::skip]
        let cases = [
            ("seconds", "300s", Ok(300_000)),
            ("minutes", "10m", Ok(600_000)),
            ("hours and minutes", "1h30m", Ok(5_400_000)),
            ("a fraction", "1.5h", Ok(5_400_000)),
            ("milliseconds", "500ms", Ok(500)),
            ("a bare zero", "0", Ok(0)),
            ("negative", "-5s", Ok(-5_000)),
            ("no unit", "5", Err(())),
            ("an unknown unit", "5d", Err(())),
            ("empty", "", Err(())),
        ];
        for (name, input, want) in cases {
            assert_eq!(parse_duration(input).map_err(|_| ()), want, "{name}");
        }
        assert_eq!(
            parse_duration("5d").unwrap_err().to_string(),
            "time: invalid duration \"5d\""
        );
    }

    #[test]
    fn human_form() {
        let cases = [
            (0, "0s"),
            (45_000, "45s"),
            (300_000, "5m"),
            (3_630_000, "1h0m30s"),
            (60_500, "1m0.5s"),
            (3_600_000, "1h"),
        ];
        for (ms, want) in cases {
            assert_eq!(human(ms), want, "{ms}");
        }
    }
}
