//! `repel lint -o sarif`: SARIF 2.1.0 as GitHub code scanning ingests it (github/docs
//! `content/code-security/reference/code-scanning/sarif-files/sarif-support.md`): one rule per
//! lint rule, one result per finding at the offending field, a relative `uri`, and a
//! `partialFingerprints` entry that stays the same while the finding does.

use serde_json::{Value, json};

use super::Report;
use repel_core::lint::{Severity, rules};

/// The schema GitHub's examples name.
pub const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// SARIF's level for a severity (`note` for info).
fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// A path as a relative URI: `./` dropped, `\` as `/`, spaces and `%` escaped.
fn uri(file: &str) -> String {
    let f = file.replace('\\', "/");
    let f = f.strip_prefix("./").unwrap_or(&f);
    let f = match std::env::current_dir() {
        Ok(cwd) => std::path::Path::new(f)
            .strip_prefix(&cwd)
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| f.to_string()),
        Err(_) => f.to_string(),
    };
    f.replace('%', "%25").replace(' ', "%20")
}

/// The SARIF log of a report.
pub fn log(r: &Report) -> Value {
    let rule_list: Vec<Value> = rules::RULES
        .iter()
        .map(|x| {
            let i = &x.info;
            json!({
                "id": i.id,
                "name": i.id,
                "shortDescription": {"text": i.summary},
                "fullDescription": {"text": truncate(i.explain, 1024)},
                "help": {"text": format!("{}\n\nExample:\n{}", i.explain, i.example),
                         "markdown": format!("{}\n\n```yaml\n{}\n```", i.explain, i.example)},
                "defaultConfiguration": {"level": level(i.severity)},
                "properties": {"tags": ["kubernetes", "taints", "tolerations"]}
            })
        })
        .collect();
    let results: Vec<Value> = r
        .findings
        .iter()
        .map(|f| {
            let index = rules::RULES.iter().position(|x| x.info.id == f.rule);
            let sev = Severity::parse(f.severity).unwrap_or(Severity::Warning);
            let (line, col) = (f.line.max(1), f.column.max(1));
            let fingerprint = format!(
                "{:08x}",
                repel_core::workload::fnv32a(
                    format!("{}|{}|{}", f.rule, f.object, f.path).as_bytes()
                )
            );
            json!({
                "ruleId": f.rule,
                "ruleIndex": index,
                "level": level(sev),
                "message": {"text": format!("{}: {}\nFix:\n{}", f.object, f.message, f.fix)},
                "locations": [{"physicalLocation": {
                    "artifactLocation": {"uri": uri(&f.file)},
                    "region": {"startLine": line, "startColumn": col,
                               "endLine": line, "endColumn": f.end_column.max(col + 1)}}}],
                "partialFingerprints": {"repelFinding/v1": fingerprint}
            })
        })
        .collect();
    json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "repel",
                "version": env!("CARGO_PKG_VERSION"),
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://github.com/repel-dev/repel",
                "rules": rule_list
            }},
            "results": results
        }]
    })
}

/// At most `n` bytes of `s`, cut at a character boundary.
fn truncate(s: &str, n: usize) -> &str {
    if s.len() <= n {
        return s;
    }
    let mut i = n;
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    &s[..i]
}

#[cfg(test)]
mod tests {
    use super::super::{Report, Row, Summary};
    use super::*;

    /// Every key path of `v` (array items as `[]`), e.g. `runs[].results[].ruleId`.
    fn paths(v: &Value, at: String, out: &mut std::collections::BTreeSet<String>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    let p = if at.is_empty() {
                        k.clone()
                    } else {
                        format!("{at}.{k}")
                    };
                    out.insert(p.clone());
                    paths(x, p, out);
                }
            }
            Value::Array(a) => a.iter().for_each(|x| paths(x, format!("{at}[]"), out)),
            _ => {}
        }
    }

    /// GitHub's own example of every SARIF property code scanning reads, from
    /// https://github.com/github/docs/blob/main/content/code-security/reference/code-scanning/sarif-files/sarif-support.md
    /// ("Example showing all supported SARIF properties"; codeFlows and relatedLocations left out).
    const GITHUB_SAMPLE: &str = include_str!("github-sarif-sample.json");

    #[test]
    fn every_field_is_one_github_reads_and_the_required_ones_are_there() {
        let report = Report {
            findings: vec![Row {
                rule: "wildcard-toleration",
                severity: "warning",
                object: "Deployment/default/wild".into(),
                file: "./deploy/app.yaml".into(),
                line: 13,
                column: 9,
                path: "spec.template.spec.tolerations[0]".into(),
                message: "m".into(),
                fix: "f".into(),
                end_column: 30,
            }],
            summary: Summary::default(),
        };
        let ours = log(&report);
        let sample: Value = serde_json::from_str(GITHUB_SAMPLE).unwrap();
        let (mut mine, mut theirs) = (Default::default(), Default::default());
        paths(&ours, String::new(), &mut mine);
        paths(&sample, String::new(), &mut theirs);
        // Fields of a rule GitHub documents beyond its example (help, informationUri).
        for extra in [
            "runs[].tool.driver.rules[].help",
            "runs[].tool.driver.rules[].help.text",
            "runs[].tool.driver.rules[].help.markdown",
            "runs[].tool.driver.version",
            "runs[].tool.driver.informationUri",
            "runs[].results[].partialFingerprints.repelFinding/v1",
        ] {
            theirs.insert(extra.to_string());
        }
        let unknown: Vec<&String> = mine.difference(&theirs).collect();
        assert!(
            unknown.is_empty(),
            "fields GitHub does not read: {unknown:?}"
        );
        let r = &ours["runs"][0]["results"][0];
        assert_eq!(
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "deploy/app.yaml"
        );
        assert_eq!(
            r["locations"][0]["physicalLocation"]["region"],
            json!({"startLine": 13, "startColumn": 9, "endLine": 13, "endColumn": 30})
        );
        assert_eq!(r["level"], "warning");
        assert_eq!(
            ours["runs"][0]["tool"]["driver"]["rules"][r["ruleIndex"].as_u64().unwrap() as usize]["id"],
            "wildcard-toleration"
        );
        for rule in ours["runs"][0]["tool"]["driver"]["rules"]
            .as_array()
            .unwrap()
        {
            assert!(rule["fullDescription"]["text"].as_str().unwrap().len() <= 1024);
            assert!(
                !rule["shortDescription"]["text"]
                    .as_str()
                    .unwrap()
                    .is_empty()
            );
        }
    }
}
