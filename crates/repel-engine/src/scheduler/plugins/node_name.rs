//! NodeName: a pod that names a node (`spec.nodeName`) fits only that node (upstream v1.35).

use repel_core::explain::ERR_REASON_NODE_NAME;

use crate::cluster::{Cluster, NodeInfo, PodInfo};
use crate::scheduler::framework::{CycleState, Plugin, Status};

/// The plugin's name.
pub const NAME: &str = "NodeName";

/// The NodeName plugin.
#[derive(Debug, Default)]
pub struct NodeName;

impl Plugin for NodeName {
    fn name(&self) -> &'static str {
        NAME
    }

    fn filter(&self, _: &CycleState, pod: &PodInfo, node: &NodeInfo, _: &Cluster) -> Status {
        match pod.spec_node_name() {
            Some(n) if n != node.name => Status::unresolvable(NAME, ERR_REASON_NODE_NAME),
            _ => Status::success(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheduler::plugins::test_support::{node, pod};

    #[test]
    fn node_name_cases() {
        #[rustfmt::skip]
        let cases = [
            ("no node name fits every node", None, "foo", true),
            ("the named node fits", Some("foo"), "foo", true),
            ("another node does not", Some("bar"), "foo", false),
        ];
        for (name, want_node, node_name, fits) in cases {
            let p = pod("p", |s| s.node_name = want_node.map(str::to_string));
            let st = NodeName.filter(
                &CycleState::default(),
                &p,
                &node(node_name, vec![]),
                &Cluster::new(),
            );
            assert_eq!(st.is_success(), fits, "{name}");
            if !fits {
                assert_eq!(
                    st.message(),
                    "node(s) didn't match the requested node name",
                    "{name}"
                );
            }
        }
    }
}
