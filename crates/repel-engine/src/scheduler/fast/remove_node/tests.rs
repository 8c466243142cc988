//! Unit tests of `crate::scheduler::fast::remove_node`.

use super::super::first_fit::FirstFit;
use super::super::*;
use crate::generate::{GenerateOptions, generate};
use crate::load::build_cluster;
use k8s_openapi::api::core::v1::Pod;
use repel_core::admission::AdmissionConfig;
use serde_json::{Value, json};

const ZONE: &str = "topology.kubernetes.io/zone";

/// A pending pod of app `app` (labels `app`, `team`, `tier`) requesting 100m / 128Mi,
/// changed by `f` (its spec, as JSON).
fn pod(name: &str, app: &str, f: impl FnOnce(&mut Value)) -> Pod {
    let mut spec = json!({
        "containers": [{"name": "c", "image": "i", "resources": {
            "requests": {"cpu": "100m", "memory": "128Mi"}}}],
        "tolerations": [{"operator": "Exists"}]
    });
    f(&mut spec);
    serde_json::from_value(json!({
        "metadata": {"name": name, "namespace": "default",
                     "labels": {"app": app, "team": format!("t-{app}"), "tier": "web"}},
        "spec": spec
    }))
    .unwrap_or_default()
}

fn spread(key: &str, when: &str, app: &str) -> Value {
    json!({"maxSkew": 1, "topologyKey": key, "whenUnsatisfiable": when,
           "labelSelector": {"matchLabels": {"app": app}}})
}

/// A generated cluster with pods of every kind the compiled state counts added (hard and
/// soft spread on the hostname and the zone, a selector on another label key, host ports,
/// and with `anti` required pod anti-affinity), scheduled but for a few pending ones
/// (returned, with a pod that fits nowhere).
fn cluster(seed: u64, anti: bool) -> (Cluster, Vec<PodId>) {
    let g = generate(&GenerateOptions {
        nodes: 24,
        pods: 420,
        seed,
        taints_per_node: 0,
    });
    let gates = FeatureGates::default();
    let mut c = build_cluster(g.input(), &gates, &AdmissionConfig::default(), seed).cluster;
    for i in 0..10 {
        c.add_pod(pod(&format!("host-{i}"), "host", |s| {
            s["topologySpreadConstraints"] =
                json!([spread(LABEL_HOSTNAME, DO_NOT_SCHEDULE, "host")]);
        }));
        c.add_pod(pod(&format!("zone-{i}"), "zone", |s| {
            s["topologySpreadConstraints"] = json!([
                spread(ZONE, DO_NOT_SCHEDULE, "zone"),
                spread(LABEL_HOSTNAME, SCHEDULE_ANYWAY, "zone"),
            ]);
        }));
        c.add_pod(pod(&format!("team-{i}"), "team", |s| {
            s["topologySpreadConstraints"] = json!([{"maxSkew": 2, "topologyKey": ZONE,
                "whenUnsatisfiable": SCHEDULE_ANYWAY,
                "labelSelector": {"matchExpressions": [
                    {"key": "team", "operator": "In", "values": ["t-team", "t-host"]}]}}]);
        }));
        c.add_pod(pod(&format!("ports-{i}"), "ports", |s| {
            s["containers"][0]["ports"] = json!([{"containerPort": 80, "hostPort": 8080}]);
        }));
        if anti {
            c.add_pod(pod(&format!("anti-{i}"), "anti", |s| {
                s["affinity"] = json!({"podAntiAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [{
                        "topologyKey": LABEL_HOSTNAME,
                        "labelSelector": {"matchLabels": {"app": "anti"}}}]}});
            }));
        }
    }
    let mut queue = c.pending();
    Scheduler::queue_order(&c, &mut queue);
    // The last of each kind stays pending, to be asked about.
    let mut probes: Vec<PodId> = Vec::new();
    for id in queue.iter().rev() {
        let app = c.pods[*id].labels().get("app").cloned();
        if probes.len() < 12
            && !probes
                .iter()
                .any(|p| c.pods[*p].labels().get("app") == app.as_ref())
        {
            probes.push(*id);
        }
    }
    queue.retain(|p| !probes.contains(p));
    FastScheduler::new(gates, Some(100), seed).schedule_pods(&mut c, &queue);
    probes.push(c.add_pod(pod("huge", "huge", |s| {
        s["containers"][0]["resources"]["requests"]["cpu"] = json!("1000");
    })));
    (c, probes)
}

/// What compiled state `run` holds, in terms that do not depend on the order it learnt
/// it in: node classes, figures and topology values per node, and each selector's and
/// label class's counts — every topology key and selector of `run` or `other` (those
/// `run` lacks counted now, as a build counts them).
fn describe(run: &mut Run, other: &mut Run, cluster: &Cluster) -> String {
    use std::fmt::Write;
    let mut keys: Vec<String> = run.domain_index.keys().cloned().collect();
    keys.extend(other.domain_index.keys().cloned());
    keys.sort();
    keys.dedup();
    let sels: BTreeMap<String, (String, LabelSelector)> = run
        .sel
        .sel_defs
        .iter()
        .chain(&other.sel.sel_defs)
        .map(|d| (format!("{d:?}"), d.clone()))
        .collect();
    let mut out = String::new();
    let _ = writeln!(out, "classes {:?} reps {:?}", run.node_class, run.reps);
    for (n, (r, f)) in run.res.iter().zip(&run.free).enumerate() {
        let _ = writeln!(out, "node {n} {r:?} {f:?}");
    }
    for key in &keys {
        let d = run.domains(cluster, key);
        let d = &run.domains[d];
        let _ = writeln!(out, "{key} {:?} {:?} {}", d.of_node, d.has, d.count);
    }
    let name = |s: &Selectors, i: u32| format!("{:?}", s.sel_defs[i as usize]);
    for (ns, def) in sels.values() {
        let key = selector_key(ns, def);
        let s = run
            .sel
            .selector(cluster, ns, key, std::borrow::Cow::Borrowed(def)) as usize;
        let sel = &run.sel.sels[s];
        let per_node: Vec<u32> = (0..run.node_class.len()).map(|n| sel.count(n)).collect();
        let per_class: Vec<i64> = (0..run.reps.len()).map(|c| sel.class_count(c)).collect();
        let _ = writeln!(out, "{ns} {def:?} {per_node:?} {per_class:?}");
    }
    let mut lcs: Vec<String> = run
        .sel
        .lc_index
        .iter()
        .filter_map(|(key, &lc)| {
            let c = &run.sel.lcs[lc as usize];
            let mut nodes: Vec<(NodeId, u32)> =
                c.nodes.iter().copied().filter(|(_, k)| *k > 0).collect();
            nodes.sort_unstable();
            for &(n, k) in nodes.iter().filter(|_| !c.stale) {
                if c.slot.get(&n).map(|&i| c.nodes[i]) != Some((n, k)) {
                    return Some(format!("{key} slot of {n} wrong"));
                }
            }
            let mut sels: Vec<String> = c.sels.iter().map(|&s| name(&run.sel, s)).collect();
            sels.sort();
            (!nodes.is_empty()).then(|| format!("{key} {nodes:?} {sels:?}"))
        })
        .collect();
    lcs.sort();
    out.extend(lcs.into_iter().map(|l| l + "\n"));
    out
}

/// The answers the what-ifs ask for, of every probe from several starts.
fn answers(ff: &mut FirstFit, c: &mut Cluster, probes: &[PodId]) -> Vec<String> {
    let mut out = Vec::new();
    let n = c.nodes.len();
    for &p in probes {
        for start in [0, n / 3, n - 1] {
            let skip = |m: NodeId| m == start;
            out.push(format!(
                "first fit {p} {start} {:?}",
                ff.first_fit(c, p, start, skip)
            ));
        }
        let ghost = c.nodes[n / 2].clone();
        out.push(format!(
            "fit error {p} {:?}",
            ff.fit_error(c, p, n / 2, &ghost)
        ));
        out.push(format!("place {p} {:?}", ff.place(c, p, 1)));
    }
    out
}

/// Nodes removed one by one (the first, the last, one in the middle, the second; some
/// of their pods taken off first, the others still bound when it goes, and bound
/// elsewhere after): the state followed in place holds what a state built anew on the
/// cluster holds, and answers first fits, FitErrors and placements as it does.
#[test]
fn a_removed_node_leaves_the_state_a_build_would_make() {
    let gates = FeatureGates::default();
    for (seed, anti) in [(3, false), (4, true)] {
        let (mut c, probes) = cluster(seed, anti);
        let mut ff = FirstFit::new(gates, &c);
        let first = answers(&mut ff, &mut c, &probes);
        assert!(
            first.iter().filter(|a| a.contains("Some(Some(")).count() > 10 || anti,
            "seed {seed}: the compiled path answers: {first:?}"
        );
        let mut step = 0;
        while c.nodes.len() > 6 {
            step += 1;
            let n = c.nodes.len();
            let node = [0, n - 1, n / 2, 1][step % 4];
            // As a drain leaves it: some of its pods taken off first (and told), the
            // others still on it when it goes.
            let on: Vec<PodId> = c.nodes[node].pods.clone();
            for &p in on.iter().step_by(2) {
                c.unbind(p);
                ff.moved(&c, p, node, -1);
            }
            c.delete_node(node);
            ff.node_removed(gates, &c, node);
            // Pods taken off bound elsewhere, shifted ids read and written.
            for (i, &p) in on.iter().step_by(2).enumerate() {
                let to = (node + i) % c.nodes.len();
                c.bind(p, to);
                ff.moved(&c, p, to, 1);
            }
            let mut built = FirstFit::new(gates, &c);
            let (a, b) = (ff.run_mut(), built.run_mut());
            let want = describe(b, a, &c);
            let got = describe(a, b, &c);
            assert_eq!(got, want, "seed {seed} step {step}: node {node} removed");
            let got = answers(&mut ff, &mut c, &probes);
            let want = answers(&mut built, &mut c, &probes);
            assert_eq!(got, want, "seed {seed} step {step}: node {node} removed");
        }
    }
}

/// Several nodes removed together ([`Cluster::delete_nodes`], [`FirstFit::nodes_removed`]:
/// the first, the last and others between, given out of order, some of their pods taken off
/// first): the state followed in place holds what a state built anew on the cluster holds,
/// and answers as it does.
#[test]
fn nodes_removed_together_leave_the_state_a_build_would_make() {
    let gates = FeatureGates::default();
    for (seed, anti) in [(5, false), (6, true)] {
        let (mut c, probes) = cluster(seed, anti);
        let mut ff = FirstFit::new(gates, &c);
        let _ = answers(&mut ff, &mut c, &probes);
        let mut round = 0;
        while c.nodes.len() > 8 {
            round += 1;
            let n = c.nodes.len();
            let gone: Vec<NodeId> = [n - 1, 0, n / 2, n / 2 + 1, 2][..2 + round % 4].to_vec();
            for &node in &gone {
                let on: Vec<PodId> = c.nodes[node].pods.clone();
                for &p in on.iter().step_by(2) {
                    c.unbind(p);
                    ff.moved(&c, p, node, -1);
                }
            }
            c.delete_nodes(&gone);
            ff.nodes_removed(gates, &c, &gone);
            let mut built = FirstFit::new(gates, &c);
            let (a, b) = (ff.run_mut(), built.run_mut());
            let want = describe(b, a, &c);
            let got = describe(a, b, &c);
            assert_eq!(
                got, want,
                "seed {seed} round {round}: nodes {gone:?} removed"
            );
            let got = answers(&mut ff, &mut c, &probes);
            let want = answers(&mut built, &mut c, &probes);
            assert_eq!(
                got, want,
                "seed {seed} round {round}: nodes {gone:?} removed"
            );
        }
    }
}
