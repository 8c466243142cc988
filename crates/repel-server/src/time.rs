//! Wall-clock helpers: RFC 3339 timestamps as the API server writes them.

use k8s_openapi::jiff::{Timestamp, Unit};

/// Now, as a timestamp.
pub fn now() -> Timestamp {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let secs = i64::try_from(d.as_secs()).unwrap_or(0);
    let nanos = i32::try_from(d.subsec_nanos()).unwrap_or(0);
    Timestamp::new(secs, nanos).unwrap_or(Timestamp::UNIX_EPOCH)
}

/// Nanoseconds since the Unix epoch (for uids; 0 if the clock is before 1970).
pub fn now_nanos() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}

/// `t` as upstream's `metav1.Time` serialises: whole seconds, `Z`.
pub fn rfc3339(t: Timestamp) -> String {
    match t.round(Unit::Second) {
        Ok(r) => r.strftime("%Y-%m-%dT%H:%M:%SZ").to_string(),
        Err(_) => t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string(),
    }
}

/// Now, as `rfc3339`.
pub fn now_rfc3339() -> String {
    rfc3339(now())
}

/// Parses an RFC 3339 timestamp.
pub fn parse(s: &str) -> Option<Timestamp> {
    s.parse().ok()
}
