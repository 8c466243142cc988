//! `repel lint`'s configuration: `--config FILE`, else `.repel.yaml` in the working directory.
//!
//! ```yaml
//! lint:
//!   disable: [toleration-without-targeting]
//!   enable: []
//!   severity: {wildcard-toleration: error}
//!   allow: {wildcard-toleration: ["kube-system/*", "Deployment/tigera-operator/tigera-operator"]}
//!   excludeNamespaces: [kube-system]      # the admission policy's binding leaves these out
//! ```

use std::path::Path;

use repel_core::lint::{LintOptions, Severity, rules};
use serde_json::Value;

use crate::CliError;

/// The file looked for in the working directory.
pub const DEFAULT_FILE: &str = ".repel.yaml";

/// What the configuration sets.
#[derive(Debug, Default)]
pub struct Config {
    /// Rules, severities, allowlists.
    pub options: LintOptions,
    /// Namespaces the admission policy's binding excludes.
    pub exclude_namespaces: Vec<String>,
}

/// Reads the configuration (`path`, else `.repel.yaml` when present; none: the defaults).
pub fn read(path: Option<&Path>) -> Result<Config, CliError> {
    let (file, text) = match path {
        Some(p) => (
            p.display().to_string(),
            std::fs::read_to_string(p)
                .map_err(|e| CliError::Usage(format!("error: {}: {e}", p.display())))?,
        ),
        None => match std::fs::read_to_string(DEFAULT_FILE) {
            Ok(t) => (DEFAULT_FILE.to_string(), t),
            Err(_) => return Ok(Config::default()),
        },
    };
    parse(&file, &text)
}

/// Parses a configuration's text (`file` names it in errors).
pub fn parse(file: &str, text: &str) -> Result<Config, CliError> {
    let bad =
        |field: &str, what: &str| CliError::Usage(format!("error: {file}: lint.{field}: {what}"));
    let v: Value = serde_saphyr::from_str(text)
        .map_err(|e| CliError::Usage(format!("error: {file}: invalid YAML: {e}")))?;
    let mut cfg = Config::default();
    let Some(lint) = v.get("lint") else {
        return Ok(cfg);
    };
    if !lint.is_object() {
        return Err(CliError::Usage(format!(
            "error: {file}: lint: must be a mapping"
        )));
    }
    let rule = |field: &str, id: &str| -> Result<String, CliError> {
        rules::find(id)
            .map(|r| r.info.id.to_string())
            .ok_or_else(|| bad(field, &format!("unknown rule {id:?}")))
    };
    let strings = |field: &str| -> Result<Vec<String>, CliError> {
        match lint.get(field) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(a)) => a
                .iter()
                .map(|x| {
                    x.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| bad(field, "must be a list of strings"))
                })
                .collect(),
            Some(_) => Err(bad(field, "must be a list of strings")),
        }
    };
    for id in strings("disable")? {
        cfg.options.disabled.insert(rule("disable", &id)?);
    }
    for id in strings("enable")? {
        cfg.options.enabled.insert(rule("enable", &id)?);
    }
    cfg.exclude_namespaces = strings("excludeNamespaces")?;
    if let Some(m) = lint.get("severity").filter(|m| !m.is_null()) {
        let m = m.as_object().ok_or_else(|| {
            bad(
                "severity",
                "must be a mapping of rule to error|warning|info",
            )
        })?;
        for (id, sev) in m {
            let s = sev
                .as_str()
                .and_then(Severity::parse)
                .ok_or_else(|| bad(&format!("severity.{id}"), "must be error, warning or info"))?;
            cfg.options.severity.insert(rule("severity", id)?, s);
        }
    }
    if let Some(m) = lint.get("allow").filter(|m| !m.is_null()) {
        let m = m
            .as_object()
            .ok_or_else(|| bad("allow", "must be a mapping of rule to a list of objects"))?;
        for (id, list) in m {
            let objs = list
                .as_array()
                .and_then(|a| {
                    a.iter()
                        .map(|x| x.as_str().map(str::to_string))
                        .collect::<Option<Vec<_>>>()
                })
                .ok_or_else(|| bad(&format!("allow.{id}"), "must be a list of strings"))?;
            cfg.options.allow.insert(rule("allow", id)?, objs);
        }
    }
    Ok(cfg)
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn reads_every_setting_and_names_a_bad_one() {
        let cfg = parse(
            ".repel.yaml",
            "lint:\n  disable: [legacy-master-only]\n  severity: {wildcard-toleration: error}\n  allow: {wildcard-toleration: [\"kube-system/*\"]}\n  excludeNamespaces: [kube-system]\n",
        )
        .unwrap();
        assert!(cfg.options.disabled.contains("legacy-master-only"));
        assert_eq!(cfg.exclude_namespaces, vec!["kube-system"]);
        assert_eq!(
            cfg.options.allow["wildcard-toleration"],
            vec!["kube-system/*"]
        );
        let err = parse("c.yaml", "lint:\n  disable: [no-such-rule]\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "error: c.yaml: lint.disable: unknown rule \"no-such-rule\""
        );
        let err = parse(
            "c.yaml",
            "lint:\n  severity: {wildcard-toleration: fatal}\n",
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "error: c.yaml: lint.severity.wildcard-toleration: must be error, warning or info"
        );
    }
}
