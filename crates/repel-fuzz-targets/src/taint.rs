//! `kubectl taint` arguments: the first line of the input is the command line after
//! `kubectl taint`, split at whitespace; `--all`, `--overwrite` and `-l=`/`--selector=` are its
//! flags, the rest its arguments (`nodes node1 key=value:NoSchedule key2-`).
//!
//! Besides ending in a result or an error, every argument that parses as a [`TaintSpec`] must
//! print (`Display`) as a spec that parses back to the same thing, and a command that parses
//! is applied to a node's taints.

use k8s_openapi::api::core::v1::Taint;
use repel_core::kubectl::{
    TaintSpec, apply_taints, kubectl_stderr_for_nodes, parse_taint, parse_taint_command,
    parse_taints, success_line,
};

/// The target body.
pub fn run(data: &[u8]) {
    let Some(text) = crate::text(data) else {
        return;
    };
    let line = text.lines().next().unwrap_or_default();
    let mut all = false;
    let mut overwrite = false;
    let mut selector = None;
    let mut args = Vec::new();
    for word in line.split_whitespace() {
        match word {
            "--all" => all = true,
            "--overwrite" => overwrite = true,
            w => match w
                .strip_prefix("--selector=")
                .or_else(|| w.strip_prefix("-l="))
            {
                Some(s) => selector = Some(s),
                None => args.push(w),
            },
        }
    }

    for arg in &args {
        if let Err(e) = parse_taint(arg) {
            let _ = e.to_string();
        }
        match arg.parse::<TaintSpec>() {
            Ok(spec) => {
                let printed = spec.to_string();
                assert_eq!(
                    printed.parse::<TaintSpec>().as_ref(),
                    Ok(&spec),
                    "{arg:?} parses as {spec:?}, which prints as {printed:?}"
                );
            }
            Err(e) => {
                let _ = e.to_string();
            }
        }
    }
    if let Err(e) = parse_taints(&args) {
        let _ = e.to_string();
    }
    let cmd = match parse_taint_command(&args, all, selector, overwrite) {
        Ok(cmd) => cmd,
        Err(e) => {
            let _ = e.is_usage_error();
            let _ = e.kubectl_stderr();
            return;
        }
    };
    let _ = cmd.selection();
    let old = node_taints();
    let mut errors = Vec::new();
    for name in cmd.node_names.iter().take(8) {
        match apply_taints(name, &old, &cmd.to_add, &cmd.to_remove, cmd.overwrite) {
            Ok((_, op)) => {
                let _ = success_line(name, op);
            }
            Err(e) => {
                let _ = e.lines();
                errors.push(e);
            }
        }
    }
    let _ = kubectl_stderr_for_nodes(&errors);
}

/// The taints of the node the command is applied to: one of each effect, one without a value.
fn node_taints() -> Vec<Taint> {
    let taint = |key: &str, value: Option<&str>, effect: &str| Taint {
        key: key.to_string(),
        value: value.map(str::to_string),
        effect: effect.to_string(),
        time_added: None,
    };
    vec![
        taint("key1", Some("value1"), "NoSchedule"),
        taint("key1", Some("value1"), "NoExecute"),
        taint("dedicated", None, "PreferNoSchedule"),
    ]
}
