//! `annotation-tolerations`: the `scheduler.alpha.kubernetes.io/tolerations` annotation, the
//! alpha form of tolerations that Kubernetes 1.6 replaced with `spec.tolerations` and has
//! ignored since.

use k8s_openapi::api::core::v1::Toleration;

use super::RuleImpl;
use crate::lint::{Context, Finding, Rule, Severity, Subject, fix_item};

/// The annotation.
pub const ANNOTATION: &str = "scheduler.alpha.kubernetes.io/tolerations";

/// The rule.
pub const RULE: RuleImpl = RuleImpl {
    info: Rule {
        id: "annotation-tolerations",
        severity: Severity::Warning,
        summary: "the obsolete scheduler.alpha.kubernetes.io/tolerations annotation (ignored since Kubernetes 1.6)",
        explain: "Before Kubernetes 1.6 tolerations were written as JSON in the pod annotation \
scheduler.alpha.kubernetes.io/tolerations. 1.6 made them the spec.tolerations field and the \
annotation has been ignored since: whatever it lists is not tolerated. Move its entries into \
spec.tolerations (the fix lists them as YAML).",
        example: "# bad\nannotations:\n  scheduler.alpha.kubernetes.io/tolerations: '[{\"key\":\"dedicated\",\"operator\":\"Equal\",\"value\":\"master\",\"effect\":\"NoSchedule\"}]'\n# good\ntolerations:\n- {key: dedicated, operator: Equal, value: master, effect: NoSchedule}",
        single_object: true,
    },
    check,
};

fn check(cx: &Context<'_>, out: &mut Vec<Finding>) {
    for (oi, o) in cx.input.objects.iter().enumerate() {
        if cx.owner_in_input(o) {
            continue;
        }
        // A template's metadata sits beside its spec: `spec.template.metadata`.
        let template = o.template_meta.map(|m| {
            (
                m,
                format!("{}.metadata", o.spec_path.trim_end_matches(".spec")),
            )
        });
        for (m, p) in template
            .into_iter()
            .chain([(o.meta, "metadata".to_string())])
        {
            let Some(value) = m.annotations.as_ref().and_then(|a| a.get(ANNOTATION)) else {
                continue;
            };
            let listed: Vec<Toleration> = serde_json::from_str(value).unwrap_or_default();
            out.push(Finding {
                rule: RULE.info.id,
                severity: RULE.info.severity,
                subject: Subject::Object(oi),
                path: format!("{p}.annotations"),
                message: format!(
                    "the annotation {ANNOTATION} has been ignored since Kubernetes 1.6: the {} toleration(s) it lists are not tolerated",
                    listed.len()
                ),
                fix: format!(
                    "# remove the annotation; in {}:\ntolerations:\n{}",
                    o.spec_path,
                    listed.iter().map(fix_item).collect::<Vec<_>>().join("\n")
                ),
            });
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::lint::testing::{check_table, daemonset};

    #[test]
    fn annotation_tolerations() {
        let mut cilium = daemonset("cilium", json!({"tolerations": [{"operator": "Exists"}]}));
        cilium["spec"]["template"]["metadata"]["annotations"] = json!({
            "scheduler.alpha.kubernetes.io/critical-pod": "",
            "scheduler.alpha.kubernetes.io/tolerations": "[{\"key\":\"dedicated\",\"operator\":\"Equal\",\"value\":\"master\",\"effect\":\"NoSchedule\"}]"});
        check_table(
            "annotation-tolerations",
            &[
                (
                    "the alpha annotation on the agent's template (cilium quick-install v1.6.0)",
                    vec![cilium],
                    vec![(
                        "spec.template.metadata.annotations",
                        "ignored since Kubernetes 1.6: the 1 toleration(s)",
                    )],
                ),
                (
                    "spec.tolerations only (kube-prometheus node-exporter)",
                    vec![daemonset(
                        "node-exporter",
                        json!({"tolerations": [{"operator": "Exists"}]}),
                    )],
                    vec![],
                ),
            ],
        );
    }
}
