//! The scheduler's "0/N nodes are available: …" message (upstream `FitError.Error`, v1.35).

use std::collections::BTreeMap;

/// Upstream `ErrNoNodesAvailable`: the message when the cluster has no nodes at all.
pub const NO_NODES_AVAILABLE: &str = "no nodes available to schedule pods";
/// DefaultPreemption's reason for a node where removing pods cannot help
/// (UnschedulableAndUnresolvable), upstream `nodesWherePreemptionMightHelp`.
pub const PREEMPTION_NOT_HELPFUL: &str = "Preemption is not helpful for scheduling";
/// DefaultPreemption's reason for a node where no lower-priority pods could be removed.
pub const NO_PREEMPTION_VICTIMS: &str = "No preemption victims found for incoming pod";
/// The DynamicResources PostFilter's message for a pod without resource claims (v1.34+, where
/// the plugin is in the default profile and runs before DefaultPreemption).
pub const NO_NEW_CLAIMS_TO_DEALLOCATE: &str = "no new claims to deallocate";
/// DefaultPreemption's message for a pod with `preemptionPolicy: Never`.
pub const PREEMPTION_POLICY_NEVER: &str = "not eligible due to preemptionPolicy=Never.";

/// The histogram part of upstream `FitError.Error`:
///
/// 1. Count every reason over all nodes (a node may give several).
/// 2. Format each as `"<count> <reason>"`.
/// 3. Sort the formatted strings lexicographically (`sort.Strings`: `"10 x"` sorts before `"2 y"`).
/// 4. Join with `", "`.
pub fn reason_histogram<'a>(reasons: impl IntoIterator<Item = &'a str>) -> String {
    counted_histogram(reasons.into_iter().map(|r| (r, 1)))
}

/// [`reason_histogram`] over reasons given with how many times each occurs (a reason may come
/// more than once: the counts add up).
pub fn counted_histogram<'a>(reasons: impl IntoIterator<Item = (&'a str, usize)>) -> String {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for (r, k) in reasons {
        *counts.entry(r).or_default() += k;
    }
    let mut entries: Vec<String> = counts
        .into_iter()
        .map(|(reason, n)| format!("{n} {reason}"))
        .collect();
    entries.sort();
    entries.join(", ")
}

/// Upstream `FitError.Error` without a PreFilter rejection: `0/<N> nodes are available: `, the
/// histogram of `reasons`, `.`, then ` <post_filter>` when there is a PostFilter message.
pub fn fit_error<'a>(
    num_all_nodes: usize,
    reasons: impl IntoIterator<Item = &'a str>,
    post_filter: Option<&str>,
) -> String {
    fit_error_counted(
        num_all_nodes,
        reasons.into_iter().map(|r| (r, 1)),
        post_filter,
    )
}

/// [`fit_error`] over reasons given with their counts (see [`counted_histogram`]).
pub fn fit_error_counted<'a>(
    num_all_nodes: usize,
    reasons: impl IntoIterator<Item = (&'a str, usize)>,
    post_filter: Option<&str>,
) -> String {
    let mut msg = format!(
        "0/{num_all_nodes} nodes are available: {}.",
        counted_histogram(reasons)
    );
    if let Some(p) = post_filter.filter(|p| !p.is_empty()) {
        msg.push(' ');
        msg.push_str(p);
    }
    msg
}

/// The default profile's PostFilter text (v1.35): DynamicResources' "no new claims to
/// deallocate", then DefaultPreemption's `preemption: ` + its own FitError over the nodes'
/// preemption reasons (or the preemptionPolicy=Never message), joined by `", "`.
pub fn default_post_filter<'a>(
    num_all_nodes: usize,
    preemption_reasons: impl IntoIterator<Item = &'a str>,
    preemption_policy_never: bool,
) -> String {
    default_post_filter_counted(
        num_all_nodes,
        preemption_reasons.into_iter().map(|r| (r, 1)),
        preemption_policy_never,
    )
}

/// [`default_post_filter`] over preemption reasons given with their counts.
pub fn default_post_filter_counted<'a>(
    num_all_nodes: usize,
    preemption_reasons: impl IntoIterator<Item = (&'a str, usize)>,
    preemption_policy_never: bool,
) -> String {
    let preemption = if preemption_policy_never {
        PREEMPTION_POLICY_NEVER.to_string()
    } else {
        fit_error_counted(num_all_nodes, preemption_reasons, None)
    };
    format!("{NO_NEW_CLAIMS_TO_DEALLOCATE}, preemption: {preemption}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_error_messages() {
        let cases: Vec<(&str, String, &str)> = vec![
            (
                "the v1.35 event with taints and cpu, byte for byte",
                fit_error(
                    3,
                    [
                        "node(s) had untolerated taint(s)",
                        "Insufficient cpu",
                        "Insufficient cpu",
                    ],
                    Some(&default_post_filter(
                        3,
                        [
                            PREEMPTION_NOT_HELPFUL,
                            NO_PREEMPTION_VICTIMS,
                            NO_PREEMPTION_VICTIMS,
                        ],
                        false,
                    )),
                ),
                "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. no new claims to deallocate, preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.",
            ),
            (
                "entries sort as whole strings, so 10 comes before 2",
                fit_error(12, std::iter::repeat_n("b", 10).chain(["a", "a"]), None),
                "0/12 nodes are available: 10 b, 2 a.",
            ),
            (
                "preemptionPolicy Never",
                fit_error(
                    1,
                    ["node(s) had untolerated taint(s)"],
                    Some(&default_post_filter(1, [], true)),
                ),
                "0/1 nodes are available: 1 node(s) had untolerated taint(s). no new claims to deallocate, preemption: not eligible due to preemptionPolicy=Never.",
            ),
        ];
        for (name, got, want) in cases {
            assert_eq!(got, want, "{name}");
        }
    }
}
