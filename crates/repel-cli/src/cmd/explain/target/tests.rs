//! kubectl's type forms.

use super::*;

#[test]
fn kubectl_type_forms_name_a_kind_and_a_dotless_word_a_namespace() {
    let kind = |s: &str| type_arg(s).map_err(|e| e.to_string());
    for (arg, want) in [
        ("deployment", Some("Deployment")),
        ("deploy", Some("Deployment")),
        ("deployment.apps", Some("Deployment")),
        ("deployments.v1.apps", Some("Deployment")),
        ("DaemonSet.apps", Some("DaemonSet")),
        ("job.batch", Some("Job")),
        ("cronjobs.v1.batch", Some("CronJob")),
        ("pod", Some("Pod")),
        ("pods.v1", Some("Pod")),
        ("rc", Some("ReplicationController")),
        ("replicationcontrollers.v1", Some("ReplicationController")),
        // A namespace: a DNS label, which has no dot.
        ("default", None),
        ("kube-system", None),
    ] {
        assert_eq!(kind(arg), Ok(want), "{arg}");
    }
    for arg in [
        "deployment.batch",
        "job.apps",
        "deployments.v2.apps",
        "web.example",
    ] {
        assert_eq!(
            kind(arg),
            Err(format!(
                "error: the server doesn't have a resource type \"{arg}\""
            )),
            "{arg}"
        );
    }
}
