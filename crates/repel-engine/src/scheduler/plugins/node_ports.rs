//! NodePorts (upstream v1.35): a pod's host ports must be free on the node.

use crate::cluster::{Cluster, HostPort, NodeInfo, PodInfo};
use crate::scheduler::framework::{CycleState, Plugin, PreFilterResult, Status};

/// The plugin's name.
pub const NAME: &str = "NodePorts";
/// Upstream `ErrReason`.
pub const ERR_REASON: &str = "node(s) didn't have free ports for the requested pod ports";

/// The NodePorts plugin.
#[derive(Debug, Default)]
pub struct NodePorts;

#[derive(Debug, Clone)]
struct PreFilterState(Vec<HostPort>);

impl Plugin for NodePorts {
    fn name(&self) -> &'static str {
        NAME
    }

    fn pre_filter(
        &self,
        state: &mut CycleState,
        pod: &PodInfo,
        _: &Cluster,
    ) -> (Status, PreFilterResult) {
        if pod.ports.is_empty() {
            return (Status::skip(), None);
        }
        state.write(NAME, PreFilterState(pod.ports.clone()));
        (Status::success(), None)
    }

    fn filter(&self, state: &CycleState, pod: &PodInfo, node: &NodeInfo, _: &Cluster) -> Status {
        let wanted = state
            .read::<PreFilterState>(NAME)
            .map_or(pod.ports.as_slice(), |s| s.0.as_slice());
        let clash = wanted
            .iter()
            .any(|want| node.used_ports.iter().any(|used| used.conflicts(want)));
        if clash {
            Status::unschedulable(NAME, vec![ERR_REASON.to_string()])
        } else {
            Status::success()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scheduler::plugins::test_support::{node, pod};
    use repel_core::k8s_openapi::api::core::v1::{Container, ContainerPort};

    fn with_port(protocol: &str, ip: &str, port: i32) -> PodInfo {
        pod("p", |s| {
            s.containers = vec![Container {
                name: "c".into(),
                ports: Some(vec![ContainerPort {
                    container_port: 80,
                    host_port: Some(port),
                    host_ip: Some(ip.into()).filter(|s: &String| !s.is_empty()),
                    protocol: Some(protocol.into()),
                    ..Default::default()
                }]),
                ..Default::default()
            }]
        })
    }

    /// Upstream `TestNodePorts`.
    #[test]
    fn port_conflicts() {
        #[rustfmt::skip]
        let cases = [
            ("nothing running: fits", None, with_port("TCP", "", 8080), true),
            ("the same port and protocol: conflict", Some(with_port("TCP", "", 8080)), with_port("TCP", "", 8080), false),
            ("another protocol: fits", Some(with_port("UDP", "", 8080)), with_port("TCP", "", 8080), true),
            ("other IPs: fits", Some(with_port("TCP", "127.0.0.1", 8080)), with_port("TCP", "127.0.0.2", 8080), true),
            ("0.0.0.0 conflicts with any IP", Some(with_port("TCP", "127.0.0.1", 8080)), with_port("TCP", "0.0.0.0", 8080), false),
            ("another port: fits", Some(with_port("TCP", "", 8080)), with_port("TCP", "", 8081), true),
        ];
        for (name, existing, p, fits) in cases {
            let mut n = node("n", vec![]);
            if let Some(e) = existing {
                n.add_pod(99, &e);
            }
            let st = NodePorts.filter(&CycleState::default(), &p, &n, &Cluster::new());
            assert_eq!(st.is_success(), fits, "{name}");
            if !fits {
                assert_eq!(st.reasons, vec![ERR_REASON.to_string()], "{name}");
                assert_eq!(
                    st.code,
                    crate::scheduler::framework::Code::Unschedulable,
                    "{name}: preemption may help"
                );
            }
        }
    }
}
