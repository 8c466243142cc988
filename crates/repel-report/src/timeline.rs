//! A scenario's run as the timeline's entries: its events (the engine's, as `repel simulate -o
//! json` prints them) and its steps (a `kubectl taint`, a node condition, a pool update), in
//! time order, steps first at equal times.

use repel_engine::events::Event;
use repel_engine::sim::{RunReport, StepRecord};

use crate::model::TimelineEntry;

/// The event `reason` of a scenario's step on the timeline.
pub const STEP: &str = "Step";

/// The seconds a toleration let a pod stay, from the taint-eviction controller's `why`
/// ("node1 has k=v:NoExecute, tolerated for 3600s").
fn countdown(why: Option<&str>) -> Option<f64> {
    let rest = why?.rsplit_once("tolerated for ")?.1;
    rest.strip_suffix('s')?.parse::<f64>().ok()
}

/// One event as a timeline entry.
pub fn event_entry(e: &Event) -> TimelineEntry {
    let (pod, node) = match e.object.split_once('/') {
        Some(("Pod", rest)) => (Some(rest.to_string()), e.node.clone()),
        Some(("Node", rest)) => (None, Some(rest.to_string())),
        _ => (None, e.node.clone()),
    };
    TimelineEntry {
        at: e.at,
        event: e.reason.clone(),
        type_: format!("{:?}", e.kind),
        pod,
        node,
        message: match &e.why {
            Some(w) => format!("{} ({w})", e.message),
            None => e.message.clone(),
        },
        countdown: countdown(e.why.as_deref()),
    }
}

/// One step as a timeline entry; `nodes` are the cluster's node names (the first the step's
/// text names is its node).
pub fn step_entry(s: &StepRecord, nodes: &[String]) -> TimelineEntry {
    let node = s
        .step
        .split(|c: char| c.is_whitespace() || c == ',' || c == '{' || c == '}' || c == ':')
        .find(|w| nodes.iter().any(|n| n == w))
        .map(str::to_string);
    TimelineEntry {
        at: s.at,
        event: STEP.to_string(),
        type_: if s.ok { "Normal" } else { "Warning" }.to_string(),
        pod: None,
        node,
        message: if s.output.is_empty() {
            s.step.clone()
        } else {
            format!("{} → {}", s.step, s.output.join("; "))
        },
        countdown: None,
    }
}

/// The run's steps and events, in time order; and the run's end (its last entry's time).
pub fn entries(run: &RunReport, nodes: &[String]) -> (Vec<TimelineEntry>, f64) {
    entries_of(&run.events, &run.steps, nodes)
}

/// The timeline of a run so far: the `events` and `steps` a scenario's simulation has recorded
/// ([`Simulation::events`](repel_engine::sim::Simulation::events) and
/// [`Simulation::steps`](repel_engine::sim::Simulation::steps), what its finished
/// [`RunReport`] holds), in time order; and its end (the last entry's time). `repel report
/// --scenario` gives it the finished run, `repel serve --scenario` the run as it stands, so
/// the same events make the same timeline.
pub fn entries_of(
    events: &[Event],
    steps: &[StepRecord],
    nodes: &[String],
) -> (Vec<TimelineEntry>, f64) {
    let mut out: Vec<TimelineEntry> = steps.iter().map(|s| step_entry(s, nodes)).collect();
    out.extend(events.iter().map(event_entry));
    out.sort_by(|a, b| {
        a.at.total_cmp(&b.at)
            .then_with(|| (a.event != STEP).cmp(&(b.event != STEP)))
    });
    let end = out.last().map(|e| e.at).unwrap_or(0.0);
    (out, end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_countdown_is_read_from_the_eviction_controllers_words() {
        let cases = [
            ("node1 has k=v:NoExecute, tolerated for 3600s", Some(3600.0)),
            ("node1 has k=v:NoExecute", None),
        ];
        for (why, want) in cases {
            assert_eq!(countdown(Some(why)), want, "{why}");
        }
    }
}
