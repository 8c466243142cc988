//! Unit tests of `crate::controllers::node_lifecycle::zones`.

use super::*;

#[test]
fn compute_zone_state_cases() {
    let t = Some("True");
    let f = Some("False");
    let u = Some("Unknown");
    #[rustfmt::skip]
    type Case<'a> = (&'a str, Vec<Option<&'a str>>, (usize, ZoneState));
    let cases: &[Case] = &[
        ("all ready is normal", vec![t, t, t], (0, ZoneState::Normal)),
        (
            "no ready node is full disruption",
            vec![u, f],
            (2, ZoneState::FullDisruption),
        ),
        (
            "a missing condition counts as not ready",
            vec![None],
            (1, ZoneState::FullDisruption),
        ),
        (
            "two of three down stays normal (more than 2 needed)",
            vec![u, u, t],
            (2, ZoneState::Normal),
        ),
        (
            "three of five down is partial (0.6 >= 0.55)",
            vec![u, u, u, t, t],
            (3, ZoneState::PartialDisruption),
        ),
        (
            "three of six down is normal (0.5 < 0.55)",
            vec![u, u, u, t, t, t],
            (3, ZoneState::Normal),
        ),
        (
            "eleven of twenty is exactly the threshold",
            [vec![u; 11], vec![t; 9]].concat(),
            (11, ZoneState::PartialDisruption),
        ),
        ("an empty zone is normal", vec![], (0, ZoneState::Normal)),
    ];
    for (name, ready, want) in cases {
        assert_eq!(compute_zone_state(ready, 0.55), *want, "{name}");
    }
}

#[test]
fn zone_keys() {
    let l = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    };
    #[rustfmt::skip]
    let cases = [
        ("no labels is the empty zone", l(&[]), ""),
        ("region and zone", l(&[(REGION, "r1"), (ZONE, "z1")]), "r1:\x00:z1"),
        ("zone only", l(&[(ZONE, "z1")]), ":\x00:z1"),
        ("the beta labels win", l(&[(REGION, "r1"), (ZONE, "z1"), (ZONE_BETA, "zb")]), "r1:\x00:zb"),
    ];
    for (name, labels, want) in cases {
        assert_eq!(zone_key(&labels), want, "{name}");
    }
}
