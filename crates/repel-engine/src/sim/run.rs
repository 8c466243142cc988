//! A scenario run to its end: the steps at their times, the expectations checked when due
//! (a pod's phase, node, pool, Terminating), and the report of the run.

use super::*;

impl Simulation {
    /// The node a pod is on, as kubectl's NODE column shows it: the node it is bound to, or for
    /// a finished pod (which holds nothing on its node any more) its `spec.nodeName`.
    fn node_of(&self, p: &crate::cluster::PodInfo) -> Option<String> {
        p.node
            .and_then(|n| self.cluster.nodes.get(n))
            .map(|n| n.name.clone())
            .or_else(|| {
                matches!(p.phase, PodPhase::Succeeded | PodPhase::Failed)
                    .then(|| p.spec_node_name().map(str::to_string))
                    .flatten()
            })
    }

    /// Live pods at the end, in creation order.
    pub fn final_pods(&self) -> Vec<FinalPod> {
        self.cluster
            .pods
            .iter()
            .filter(|p| !p.deleted)
            .map(|p| FinalPod {
                terminating: p.terminating,
                pod: p.key(),
                node: self.node_of(p),
                phase: p.phase.as_str(),
            })
            .collect()
    }

    /// The pool a node belongs to, by its pool label.
    fn pool_of_node(&self, node: &str) -> Option<String> {
        let id = self.cluster.node_id(node)?;
        let labels = &self.cluster.nodes[id].labels;
        self.plane
            .pools
            .pools
            .iter()
            .map(|s| &s.pool)
            .find(|p| labels.get(p.node_label.0) == Some(&p.node_label.1))
            .map(|p| p.name.clone())
    }

    /// `{pool, nodes, taints}` now: `(what is, whether it is as expected)`.
    fn check_pool(
        &self,
        pool: &str,
        nodes: Option<usize>,
        taints: Option<&[String]>,
    ) -> (String, bool) {
        let Some(p) = self.plane.pools.pool(pool) else {
            return (format!("no pool {pool}"), false);
        };
        let ids = crate::controllers::node_pools::PoolController::nodes_of(&self.cluster, p);
        let ready = ids
            .iter()
            .filter(|id| self.cluster.node_ready(**id))
            .count();
        let mut actual = Vec::new();
        let mut ok = true;
        if let Some(n) = nodes {
            actual.push(format!("{ready} Ready node(s)"));
            ok &= ready == n;
        }
        if let Some(want) = taints {
            let mut want: Vec<String> = want
                .iter()
                .map(|s| {
                    repel_core::kubectl::parse_taint(s)
                        .map(|t| repel_core::taint::taint_to_string(&t))
                        .unwrap_or_else(|_| s.clone())
                })
                .collect();
            want.sort();
            let mut differing = Vec::new();
            for id in &ids {
                let mut have: Vec<String> = self.cluster.nodes[*id]
                    .taints
                    .iter()
                    .filter(|t| !repel_core::conditions::is_controller_no_schedule_key(&t.key))
                    .map(repel_core::taint::taint_to_string)
                    .collect();
                have.sort();
                if have != want {
                    differing.push(format!(
                        "{} has [{}]",
                        self.cluster.nodes[*id].name,
                        have.join(", ")
                    ));
                }
            }
            if differing.is_empty() {
                actual.push(format!("every node has [{}]", want.join(", ")));
            } else {
                ok = false;
                actual.extend(differing);
            }
        }
        (actual.join("; "), ok)
    }

    fn check_pod(
        &self,
        pod: &str,
        phase: Option<ExpectedPhase>,
        node: Option<&str>,
        pool: Option<&str>,
        terminating: Option<bool>,
    ) -> (String, bool) {
        let (ns, name) = pod.split_once('/').unwrap_or(("default", pod));
        let live = self
            .cluster
            .pod_id(ns, name)
            .map(|id| &self.cluster.pods[id]);
        let (actual_phase, actual_node) = match live {
            Some(p) => (p.phase.as_str(), self.node_of(p)),
            None => ("Gone", None),
        };
        let actual_terminating = live.is_some_and(|p| p.terminating);
        let terminating_ok = terminating.is_none_or(|want| want == actual_terminating);
        let phase_ok = phase.is_none_or(|want| want.as_str() == actual_phase);
        let node_ok = node.is_none_or(|want| actual_node.as_deref() == Some(want));
        let actual_pool = actual_node.as_deref().and_then(|n| self.pool_of_node(n));
        let pool_ok = pool.is_none_or(|want| actual_pool.as_deref() == Some(want));
        let mut actual = match &actual_node {
            Some(n) => format!("{actual_phase} on {n}"),
            None => actual_phase.to_string(),
        };
        if pool.is_some()
            && let Some(p) = &actual_pool
        {
            actual.push_str(&format!(" (pool {p})"));
        }
        if actual_terminating {
            actual.push_str(" (Terminating)");
        }
        (actual, phase_ok && node_ok && pool_ok && terminating_ok)
    }
}

/// A whole run: events, steps, the final pods and the expectations' results.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    /// Every event, in order.
    pub events: Vec<Event>,
    /// Every step, in order.
    pub steps: Vec<StepRecord>,
    /// The live pods at the end.
    #[serde(rename = "final")]
    pub final_state: FinalState,
    /// The expectations' results.
    pub expectations: Vec<ExpectationResult>,
    /// Notes from loading.
    pub warnings: Vec<String>,
}

/// `final` of the JSON contract.
#[derive(Debug, Clone, Serialize)]
pub struct FinalState {
    /// The live pods.
    pub pods: Vec<FinalPod>,
}

/// Runs a scenario on the cluster `input` holds (its manifests and inline objects, read by the
/// caller): steps at their times, pod expectations checked when their time comes (after that
/// time's steps), event expectations at the end, until `until` (default: the last step or
/// expectation).
pub fn run_scenario(scenario: &Scenario, input: ClusterInput) -> RunReport {
    run_scenario_observed(scenario, input, None)
}

/// [`run_scenario`] with a driver watching every pass ([`Simulation::observe`]).
pub fn run_scenario_observed(
    scenario: &Scenario,
    input: ClusterInput,
    observer: Option<Observer>,
) -> RunReport {
    let mut run = ScenarioRun::new(scenario, input, observer);
    run.advance(Millis::MAX);
    run.finish()
}

/// A scenario being played, resumable: [`ScenarioRun::advance`] plays it up to a time, as a
/// driver on a wall clock does (`repel serve --scenario`), and settles exactly the points in
/// time [`run_scenario`] settles — every controller deadline, step and pod check — so events
/// come at the same times whatever the increments.
pub struct ScenarioRun {
    /// The simulation.
    pub sim: Simulation,
    scenario: Scenario,
    /// The next step (index into the scenario's steps, in time order).
    next_step: usize,
    /// Pod checks in time order, and the next one.
    pod_checks: Vec<usize>,
    next_check: usize,
    /// When the scenario ends (its `until`, else its last step, check or event expectation).
    pub until: Millis,
    results: Vec<ExpectationResult>,
}

impl ScenarioRun {
    /// The scenario's simulation at time 0, settled (an observer sees the initial cluster
    /// first, then every pass).
    pub fn new(scenario: &Scenario, input: ClusterInput, observer: Option<Observer>) -> Self {
        let mut sim = Simulation::new(input, SimConfig::from_scenario(scenario));
        if let Some(o) = observer {
            sim.observe(o);
        }
        let check_at = |e: &Expectation| match e {
            Expectation::Pod { at, .. }
            | Expectation::Drainable { at, .. }
            | Expectation::Pool { at, .. } => *at,
            _ => 0,
        };
        let mut pod_checks: Vec<usize> = (0..scenario.expect.len())
            .filter(|i| {
                matches!(
                    scenario.expect[*i],
                    Expectation::Pod { .. }
                        | Expectation::Drainable { .. }
                        | Expectation::Pool { .. }
                )
            })
            .collect();
        pod_checks.sort_by_key(|i| check_at(&scenario.expect[*i]));
        let last = scenario
            .steps
            .iter()
            .map(|s| s.at)
            .chain(pod_checks.iter().map(|i| check_at(&scenario.expect[*i])))
            .max()
            .unwrap_or(0);
        let last_event_check = scenario
            .expect
            .iter()
            .filter_map(|e| match e {
                Expectation::Event { at, by, .. } => at.or(*by),
                _ => None,
            })
            .max()
            .unwrap_or(0);
        let until = scenario
            .until
            .unwrap_or(last.max(last_event_check))
            .max(last);
        sim.settle();
        ScenarioRun {
            sim,
            scenario: scenario.clone(),
            next_step: 0,
            pod_checks,
            next_check: 0,
            until,
            results: Vec::new(),
        }
    }

    /// Whether the scenario has played to its end.
    pub fn done(&self) -> bool {
        self.next_step >= self.scenario.steps.len()
            && self.next_check >= self.pod_checks.len()
            && self.sim.now >= self.until
    }

    fn next_check_at(&self) -> Option<Millis> {
        let i = *self.pod_checks.get(self.next_check)?;
        match &self.scenario.expect[i] {
            Expectation::Pod { at, .. }
            | Expectation::Drainable { at, .. }
            | Expectation::Pool { at, .. } => Some(*at),
            _ => Some(0),
        }
    }

    /// Plays the scenario up to cluster time `to`: each step and pod check due, with every
    /// controller deadline on the way; at the end, up to `until`. Time points where nothing is
    /// due are not settled (a driver calling this often changes nothing).
    pub fn advance(&mut self, to: Millis) {
        loop {
            let next_step = self.scenario.steps.get(self.next_step).map(|s| s.at);
            let next = match (next_step, self.next_check_at()) {
                (Some(a), Some(b)) => a.min(b),
                (Some(a), None) => a,
                (None, Some(b)) => b,
                (None, None) => break,
            };
            if next > to {
                self.settle_deadlines(to);
                return;
            }
            self.sim.advance_to(next);
            while let Some(step) = self
                .scenario
                .steps
                .get(self.next_step)
                .filter(|s| s.at <= self.sim.now)
                .cloned()
            {
                self.next_step += 1;
                self.sim.apply_step(&step);
            }
            while let Some(at) = self.next_check_at().filter(|at| *at <= self.sim.now) {
                let i = self.pod_checks[self.next_check];
                self.next_check += 1;
                if let Expectation::Pod {
                    index,
                    pod,
                    phase,
                    node,
                    pool,
                    terminating,
                    ..
                } = &self.scenario.expect[i]
                {
                    let (actual, passed) = self.sim.check_pod(
                        pod,
                        *phase,
                        node.as_deref(),
                        pool.as_deref(),
                        *terminating,
                    );
                    let mut expected = format!("at {}: pod {pod}", human(at));
                    if let Some(p) = phase {
                        expected.push_str(&format!(" {}", p.as_str()));
                    }
                    if let Some(n) = node {
                        expected.push_str(&format!(" on {n}"));
                    }
                    if let Some(p) = pool {
                        expected.push_str(&format!(" on a node of pool {p}"));
                    }
                    match terminating {
                        Some(true) => expected.push_str(" (Terminating)"),
                        Some(false) => expected.push_str(" (not Terminating)"),
                        None => {}
                    }
                    self.results.push(ExpectationResult {
                        index: *index,
                        expected,
                        actual,
                        passed,
                    });
                }
                if let Expectation::Pool {
                    index,
                    pool,
                    nodes,
                    taints,
                    ..
                } = &self.scenario.expect[i]
                {
                    let (actual, passed) = self.sim.check_pool(pool, *nodes, taints.as_deref());
                    let mut expected = format!("at {}: pool {pool}", human(at));
                    if let Some(n) = nodes {
                        expected.push_str(&format!(" {n} Ready node(s)"));
                    }
                    if let Some(t) = taints {
                        expected.push_str(&format!(" every node tainted [{}]", t.join(", ")));
                    }
                    self.results.push(ExpectationResult {
                        index: *index,
                        expected,
                        actual,
                        passed,
                    });
                }
                if let Expectation::Drainable {
                    index,
                    node,
                    decider,
                    value,
                    ..
                } = &self.scenario.expect[i]
                {
                    let (actual, drainable) = self.sim.judge_drain(node, *decider);
                    let expected = format!(
                        "at {}: node {node} {}drainable ({})",
                        human(at),
                        if *value { "" } else { "not " },
                        decider.as_str()
                    );
                    self.results.push(ExpectationResult {
                        index: *index,
                        expected,
                        actual,
                        passed: drainable == Some(*value),
                    });
                }
            }
        }
        if to >= self.until {
            self.sim.advance_to(self.until);
        } else {
            self.settle_deadlines(to);
        }
    }

    /// Settles every controller deadline up to `to`, not `to` itself.
    fn settle_deadlines(&mut self, to: Millis) {
        while let Some(next) = self.sim.next_wake().filter(|n| *n <= to) {
            self.sim.now = next;
            self.sim.settle();
        }
    }

    /// The report: events, steps, the final pods, every expectation's result.
    pub fn finish(self) -> RunReport {
        let ScenarioRun {
            sim,
            scenario,
            mut results,
            ..
        } = self;
        let scenario = &scenario;
        for e in &scenario.expect {
            if let Expectation::Event {
                index,
                reason,
                object,
                at,
                by,
                count,
            } = e
            {
                let matching: Vec<&Event> = sim
                    .events
                    .iter()
                    .filter(|ev| {
                        ev.reason == *reason
                            && object.as_ref().is_none_or(|o| {
                                ev.object == *o || ev.object.ends_with(&format!("/{o}"))
                            })
                    })
                    .filter(|ev| {
                        at.is_none_or(|t| ev.at_ms == t) && by.is_none_or(|t| ev.at_ms <= t)
                    })
                    .collect();
                let passed = match count {
                    Some(n) => matching.len() == *n,
                    None => !matching.is_empty(),
                };
                let mut expected = format!("event {reason}");
                if let Some(o) = object {
                    expected.push_str(&format!(" on {o}"));
                }
                if let Some(t) = at {
                    expected.push_str(&format!(" at {}", human(*t)));
                }
                if let Some(t) = by {
                    expected.push_str(&format!(" by {}", human(*t)));
                }
                if let Some(n) = count {
                    expected.push_str(&format!(", {n} time(s)"));
                }
                let actual = if matching.is_empty() {
                    "no such event".to_string()
                } else {
                    let times: Vec<String> = matching.iter().map(|e| human(e.at_ms)).collect();
                    format!("{} such event(s), at {}", matching.len(), times.join(", "))
                };
                results.push(ExpectationResult {
                    index: *index,
                    expected,
                    actual,
                    passed,
                });
            }
        }
        results.sort_by_key(|r| r.index);
        RunReport {
            final_state: FinalState {
                pods: sim.final_pods(),
            },
            events: sim.events,
            steps: sim.steps,
            expectations: results,
            warnings: sim.warnings,
        }
    }
}
