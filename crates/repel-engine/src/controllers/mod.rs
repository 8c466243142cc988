//! Controllers as synchronous state machines on the simulated clock: each looks at the cluster
//! at `now`, changes it (it is the one writer while it runs), records events, and says when it
//! next needs to run.

pub mod device_plugins;
pub mod garbage_collector;
pub mod karpenter;
pub mod kubelet;
pub mod node_lifecycle;
pub mod node_pools;
pub mod pod_gc;
pub mod taint_eviction;
pub mod workloads;

use crate::clock::Millis;
use crate::cluster::{Cluster, NodeId};
use crate::events::Event;

/// A controller stepped by the simulation.
pub trait Controller {
    /// Its name, e.g. `taint-eviction-controller`.
    fn name(&self) -> &'static str;
    /// Reconciles at `now`: reads and changes the cluster, appends events.
    fn reconcile(&mut self, now: Millis, cluster: &mut Cluster, events: &mut Vec<Event>);
    /// The next time it has work scheduled (a deadline, a grace period ending), if any.
    fn next_wake(&self, now: Millis, cluster: &Cluster) -> Option<Millis>;
    /// Node `node`, called `name`, was deleted ([`Cluster::delete_node`]): a controller that
    /// keeps node ids forgets it and moves the ids after it down one.
    fn node_removed(&mut self, node: NodeId, name: &str) {
        let _ = (node, name);
    }
}
