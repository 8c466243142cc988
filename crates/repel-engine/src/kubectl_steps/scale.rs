//! `kubectl scale [--current-replicas=N] --replicas=COUNT TYPE NAME | TYPE/NAME …` (upstream
//! `ScaleOptions`, kubectl v1.32, `staging/src/k8s.io/kubectl/pkg/cmd/scale/scale.go`), for the
//! kinds with a scale subresource that scenarios run: Deployments, ReplicaSets and
//! StatefulSets. Parsed here; the simulation applies it to its workload controllers
//! ([`crate::sim::Simulation`]), since scaling changes a workload, not the cluster view.

use super::flags::{NAMESPACE, parse_flags, value};
use super::{Resource, resource, unknown_resource};

/// One object to scale.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScaleTarget {
    /// Its kind (`Deployment`, `ReplicaSet`, `StatefulSet`).
    pub kind: &'static str,
    /// kubectl's name for its resource in messages (`deployment.apps`).
    pub resource: String,
    /// Its plural resource with its group (`deployments.apps`), for NotFound.
    pub plural: String,
    /// Its name.
    pub name: String,
}

/// A parsed `kubectl scale`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScaleRequest {
    /// The namespace (`-n`, default `default`).
    pub namespace: String,
    /// The new replica count.
    pub replicas: i32,
    /// `--current-replicas`, when given (a precondition).
    pub current: Option<i32>,
    /// The objects, in order.
    pub targets: Vec<ScaleTarget>,
}

/// Upstream's text when `--replicas` is negative.
pub const MSG_REPLICAS_NEGATIVE: &str =
    "The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0";

fn int_flag(v: &str, flag: &str) -> Result<i32, String> {
    v.parse::<i32>().map_err(|_| {
        format!(
            "invalid argument {v:?} for \"--{flag}\" flag: strconv.ParseInt: parsing {v:?}: invalid syntax"
        )
    })
}

fn target(word: &str, name: &str) -> Result<ScaleTarget, String> {
    let Some(r) = resource(word) else {
        return Err(unknown_resource(word));
    };
    let k = match r {
        Resource::Other(p @ ("deployments" | "replicasets" | "statefulsets")) => {
            repel_core::kinds::by_plural(p)
        }
        _ => None,
    };
    let Some(k) = k else {
        return Err(format!(
            "repel: kubectl scale in a scenario scales deployments, replicasets and statefulsets, not {word}"
        ));
    };
    let (kind, res, plural) = (k.kind, k.singular_qualified(), k.qualified());
    Ok(ScaleTarget {
        kind,
        resource: res,
        plural,
        name: name.to_string(),
    })
}

/// Parses `kubectl scale`'s arguments (after `scale`), with kubectl's errors (each printed
/// with `error: `).
pub fn parse(args: &[String]) -> Result<ScaleRequest, String> {
    let specs = [
        value("replicas", None),
        value("current-replicas", None),
        value("resource-version", None),
        value("timeout", None),
        NAMESPACE,
    ];
    let p = parse_flags(args, &specs)?;
    // cobra checks required flags before the command runs.
    let Some(replicas) = p.get("replicas") else {
        return Err("required flag(s) \"replicas\" not set".to_string());
    };
    let replicas = int_flag(replicas, "replicas")?;
    let current = match p.get("current-replicas") {
        Some(v) => Some(int_flag(v, "current-replicas")?).filter(|c| *c >= 0),
        None => None,
    };
    if p.get("resource-version").is_some() {
        return Err("repel: --resource-version is not supported in scenario steps".to_string());
    }
    if replicas < 0 {
        return Err(MSG_REPLICAS_NEGATIVE.to_string());
    }
    let mut targets = Vec::new();
    let args = &p.args;
    if args.is_empty() {
        return Err(
            "You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'"
                .to_string(),
        );
    }
    if args[0].contains('/') {
        for a in args {
            let Some((word, name)) = a.split_once('/') else {
                return Err(format!(
                    "repel: write every object of kubectl scale as TYPE/NAME, or TYPE NAME… ({a})"
                ));
            };
            targets.push(target(word, name)?);
        }
    } else {
        let word = &args[0];
        if args.len() == 1 {
            return Err(format!(
                "repel: kubectl scale {word} names no object (write TYPE NAME or TYPE/NAME)"
            ));
        }
        for name in &args[1..] {
            targets.push(target(word, name)?);
        }
    }
    Ok(ScaleRequest {
        namespace: p.get("namespace").unwrap_or("default").to_string(),
        replicas,
        current,
        targets,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn forms_and_errors_as_kubectl() {
        let r = parse(&words("deployment/web --replicas=3")).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(r.replicas, 3);
        assert_eq!(r.targets[0].kind, "Deployment");
        assert_eq!(r.targets[0].name, "web");
        let r = parse(&words("--replicas 0 sts db -n data --current-replicas=2"))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            (
                r.replicas,
                r.current,
                r.namespace.as_str(),
                r.targets[0].resource.as_str()
            ),
            (0, Some(2), "data", "statefulset.apps")
        );
        let r = parse(&words("rs a b --replicas=1")).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(r.targets.len(), 2);
        assert_eq!(
            parse(&words("deployment/web")),
            Err("required flag(s) \"replicas\" not set".to_string())
        );
        assert_eq!(
            parse(&words("deployment/web --replicas=-1")),
            Err(MSG_REPLICAS_NEGATIVE.to_string())
        );
        assert!(
            parse(&words("deployment/web --replicas=x"))
                .is_err_and(|e| e.starts_with("invalid argument \"x\" for \"--replicas\" flag"))
        );
        assert_eq!(
            parse(&words("nosuch/web --replicas=1")),
            Err(unknown_resource("nosuch"))
        );
    }
}
