#![allow(clippy::unwrap_used, clippy::expect_used, clippy::type_complexity)] // tests may unwrap (CONVENTIONS)

use k8s_openapi::api::core::v1::{PodSpec, Taint, Toleration};

use super::*;
use crate::testing::{node_with_taints, taint, tol, tol_secs};

const NR: &str = TAINT_NODE_NOT_READY;
const UR: &str = TAINT_NODE_UNREACHABLE;

fn spec(tolerations: Vec<Toleration>) -> PodSpec {
    PodSpec {
        tolerations: (!tolerations.is_empty()).then_some(tolerations),
        ..Default::default()
    }
}

fn tolerations(spec: &PodSpec) -> Vec<Toleration> {
    spec.tolerations.clone().unwrap_or_default()
}

#[test]
fn default_toleration_seconds_table() {
    // Upstream TestForgivenessAdmission, plus the seed facts and the "not inspected" rules.
    let cases: Vec<(&str, Vec<Toleration>, Vec<Toleration>)> = vec![
        (
            "a plain pod gets not-ready and unreachable with 300 s, not-ready first",
            vec![],
            vec![
                tol_secs(NR, "Exists", "", "NoExecute", 300),
                tol_secs(UR, "Exists", "", "NoExecute", 300),
            ],
        ),
        (
            "a pod with unrelated tolerations keeps them and gets both defaults after them",
            vec![tol_secs("foo", "Equal", "bar", "NoSchedule", 700)],
            vec![
                tol_secs("foo", "Equal", "bar", "NoSchedule", 700),
                tol_secs(NR, "Exists", "", "NoExecute", 300),
                tol_secs(UR, "Exists", "", "NoExecute", 300),
            ],
        ),
        (
            "a pod tolerating not-ready NoExecute gets only unreachable",
            vec![tol_secs(NR, "Exists", "", "NoExecute", 700)],
            vec![
                tol_secs(NR, "Exists", "", "NoExecute", 700),
                tol_secs(UR, "Exists", "", "NoExecute", 300),
            ],
        ),
        (
            "a pod that sets unreachable NoExecute 6000 s keeps it and gets only not-ready",
            vec![tol_secs(UR, "Exists", "", "NoExecute", 6000)],
            vec![
                tol_secs(UR, "Exists", "", "NoExecute", 6000),
                tol_secs(NR, "Exists", "", "NoExecute", 300),
            ],
        ),
        (
            "a pod tolerating both is left unchanged",
            vec![
                tol_secs(NR, "Exists", "", "NoExecute", 700),
                tol_secs(UR, "Exists", "", "NoExecute", 700),
            ],
            vec![
                tol_secs(NR, "Exists", "", "NoExecute", 700),
                tol_secs(UR, "Exists", "", "NoExecute", 700),
            ],
        ),
        (
            "an empty effect counts as tolerating NoExecute",
            vec![tol_secs(UR, "Exists", "", "", 700)],
            vec![
                tol_secs(UR, "Exists", "", "", 700),
                tol_secs(NR, "Exists", "", "NoExecute", 300),
            ],
        ),
        (
            "the wildcard toleration counts for both",
            vec![tol_secs("", "Exists", "", "", 700)],
            vec![tol_secs("", "Exists", "", "", 700)],
        ),
        (
            "an empty key with effect NoExecute counts for both whatever its operator",
            vec![tol("", "Equal", "x", "NoExecute")],
            vec![tol("", "Equal", "x", "NoExecute")],
        ),
        (
            "an Equal toleration with a value counts because operator and value are not inspected",
            vec![tol(NR, "Equal", "whatever", "NoExecute")],
            vec![
                tol(NR, "Equal", "whatever", "NoExecute"),
                tol_secs(UR, "Exists", "", "NoExecute", 300),
            ],
        ),
        (
            "a NoSchedule toleration of not-ready does not count",
            vec![tol(NR, "Exists", "", "NoSchedule")],
            vec![
                tol(NR, "Exists", "", "NoSchedule"),
                tol_secs(NR, "Exists", "", "NoExecute", 300),
                tol_secs(UR, "Exists", "", "NoExecute", 300),
            ],
        ),
        (
            "an empty key with effect NoSchedule does not count",
            vec![tol("", "Exists", "", "NoSchedule")],
            vec![
                tol("", "Exists", "", "NoSchedule"),
                tol_secs(NR, "Exists", "", "NoExecute", 300),
                tol_secs(UR, "Exists", "", "NoExecute", 300),
            ],
        ),
    ];
    for (name, input, want) in cases {
        let mut s = spec(input);
        default_toleration_seconds(&mut s, &DefaultTolerationSecondsConfig::default());
        assert_eq!(tolerations(&s), want, "{name}");
    }
}

#[test]
fn default_toleration_seconds_uses_the_configured_seconds() {
    let cfg = DefaultTolerationSecondsConfig {
        not_ready_seconds: 10,
        unreachable_seconds: 20,
    };
    let mut s = spec(vec![]);
    default_toleration_seconds(&mut s, &cfg);
    assert_eq!(
        tolerations(&s),
        vec![
            tol_secs(NR, "Exists", "", "NoExecute", 10),
            tol_secs(UR, "Exists", "", "NoExecute", 20)
        ],
        "configured seconds are used"
    );
    assert_eq!(
        DefaultTolerationSecondsConfig::default(),
        DefaultTolerationSecondsConfig {
            not_ready_seconds: 300,
            unreachable_seconds: 300
        },
        "the default is 300/300"
    );
}

fn ds_defaults(host_network: bool) -> Vec<Toleration> {
    let mut v = vec![
        tol(NR, "Exists", "", "NoExecute"),
        tol(UR, "Exists", "", "NoExecute"),
        tol(TAINT_NODE_DISK_PRESSURE, "Exists", "", "NoSchedule"),
        tol(TAINT_NODE_MEMORY_PRESSURE, "Exists", "", "NoSchedule"),
        tol(TAINT_NODE_PID_PRESSURE, "Exists", "", "NoSchedule"),
        tol(TAINT_NODE_UNSCHEDULABLE, "Exists", "", "NoSchedule"),
    ];
    if host_network {
        v.push(tol(
            TAINT_NODE_NETWORK_UNAVAILABLE,
            "Exists",
            "",
            "NoSchedule",
        ));
    }
    v
}

#[test]
fn daemonset_tolerations_table() {
    let mut with_user = vec![tol("dedicated", "Equal", "infra", "NoSchedule")];
    with_user.extend(ds_defaults(false));
    let mut forever_in_place = ds_defaults(false);
    forever_in_place.insert(1, tol("foo", "Exists", "", ""));
    forever_in_place.swap(0, 1);
    let cases: Vec<(&str, bool, Vec<Toleration>, Vec<Toleration>)> = vec![
        (
            "a pod without tolerations gets the six defaults in order",
            false,
            vec![],
            ds_defaults(false),
        ),
        (
            "a hostNetwork pod also gets network-unavailable last",
            true,
            vec![],
            ds_defaults(true),
        ),
        (
            "user tolerations stay first and the defaults follow",
            false,
            vec![tol("dedicated", "Equal", "infra", "NoSchedule")],
            with_user,
        ),
        (
            "a template's not-ready NoExecute 300 s becomes forever, in place",
            false,
            vec![
                tol("foo", "Exists", "", ""),
                tol_secs(NR, "Exists", "", "NoExecute", 300),
            ],
            forever_in_place,
        ),
        (
            "the wildcard toleration does not stop any default being added",
            false,
            vec![tol("", "Exists", "", "")],
            [vec![tol("", "Exists", "", "")], ds_defaults(false)].concat(),
        ),
        (
            "an Equal not-ready toleration is not the same toleration and stays beside the default",
            false,
            vec![tol_secs(NR, "Equal", "", "NoExecute", 60)],
            [
                vec![tol_secs(NR, "Equal", "", "NoExecute", 60)],
                ds_defaults(false),
            ]
            .concat(),
        ),
        (
            "applying twice changes nothing more",
            false,
            ds_defaults(false),
            ds_defaults(false),
        ),
    ];
    for (name, host_network, input, want) in cases {
        let mut s = spec(input);
        s.host_network = Some(host_network);
        add_daemonset_tolerations(&mut s);
        assert_eq!(tolerations(&s), want, "{name}");
    }
}

#[test]
fn add_or_update_toleration_table() {
    let forever = tol(NR, "Exists", "", "NoExecute");
    let cases: Vec<(&str, Vec<Toleration>, Vec<Toleration>)> = vec![
        (
            "a new toleration is appended",
            vec![tol("a", "Exists", "", "")],
            vec![tol("a", "Exists", "", ""), forever.clone()],
        ),
        (
            "a matching toleration with other seconds is replaced in place",
            vec![
                tol_secs(NR, "Exists", "", "NoExecute", 300),
                tol("a", "Exists", "", ""),
            ],
            vec![forever.clone(), tol("a", "Exists", "", "")],
        ),
        (
            "an equal toleration is kept as it is",
            vec![forever.clone()],
            vec![forever.clone()],
        ),
        (
            "every duplicate match is rewritten, as upstream's loop does",
            vec![
                tol_secs(NR, "Exists", "", "NoExecute", 1),
                tol_secs(NR, "Exists", "", "NoExecute", 2),
            ],
            vec![forever.clone(), forever.clone()],
        ),
        (
            "an explicit empty value matches an unset one, as Go's strings do",
            vec![Toleration {
                value: Some(String::new()),
                ..tol_secs(NR, "Exists", "", "NoExecute", 5)
            }],
            vec![forever.clone()],
        ),
    ];
    for (name, input, want) in cases {
        let mut s = spec(input);
        assert!(
            add_or_update_toleration(&mut s, &forever),
            "{name}: upstream always reports true"
        );
        assert_eq!(tolerations(&s), want, "{name}");
    }
}

#[test]
fn taint_nodes_by_condition_table() {
    // Upstream Test_nodeTaints plus the key-and-effect rule.
    let nr_ns = taint(NR, "", "NoSchedule");
    let cases: Vec<(&str, Vec<Taint>, Vec<Taint>)> = vec![
        (
            "the not-ready taint is added on creation",
            vec![],
            vec![nr_ns.clone()],
        ),
        (
            "an already tainted node is not tainted again",
            vec![nr_ns.clone()],
            vec![nr_ns.clone()],
        ),
        (
            "a not-ready NoSchedule taint with a value counts, the value is ignored",
            vec![taint(NR, "x", "NoSchedule")],
            vec![taint(NR, "x", "NoSchedule")],
        ),
        (
            "a not-ready NoExecute taint does not count",
            vec![taint(NR, "", "NoExecute")],
            vec![taint(NR, "", "NoExecute"), nr_ns.clone()],
        ),
        (
            "user taints are kept and the taint appended after them",
            vec![taint("dedicated", "gpu", "NoSchedule")],
            vec![taint("dedicated", "gpu", "NoSchedule"), nr_ns.clone()],
        ),
    ];
    for (name, input, want) in cases {
        let mut node = node_with_taints("n1", input);
        taint_nodes_by_condition(&mut node);
        let got = node.spec.and_then(|s| s.taints).unwrap_or_default();
        assert_eq!(got, want, "{name}");
        assert!(
            got.iter().all(|t| t.time_added.is_none()),
            "{name}: no timeAdded"
        );
    }
}

#[test]
fn taint_nodes_by_condition_handles_a_node_without_spec() {
    let mut node = k8s_openapi::api::core::v1::Node::default();
    taint_nodes_by_condition(&mut node);
    let got = node.spec.and_then(|s| s.taints).unwrap_or_default();
    assert_eq!(
        got,
        vec![taint(NR, "", "NoSchedule")],
        "a spec-less node gets the taint"
    );
}
