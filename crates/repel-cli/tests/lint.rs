//! `repel lint` run as a user runs it: positions of the offending field, the human and JSON
//! output, exit codes with `--fail-on`, configuration, ignore annotations, `--explain`, and
//! every file of the shared corpus (`../shared/corpus/real`) in a reviewed snapshot.

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

fn repel(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("repel")
        .unwrap()
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A Deployment with a keyless Exists toleration at line 14, column 9 (cut from
/// calico's tigera-operator Deployment).
const WILD: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: tigera-operator
  namespace: tigera-operator
spec:
  selector:
    matchLabels: {name: tigera-operator}
  template:
    metadata:
      labels: {name: tigera-operator}
    spec:
      tolerations:
        - effect: NoExecute
          operator: Exists
      containers: [{name: tigera-operator, image: quay.io/tigera/operator}]
";

fn tmp_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

#[test]
fn human_output_points_at_the_toleration_itself_then_the_fix() {
    let dir = tmp_with(&[("op.yaml", WILD)]);
    let (code, out, _) = repel(dir.path(), &["lint", "-f", "op.yaml"]);
    assert_eq!(code, 1);
    let first = out.lines().next().unwrap();
    assert!(
        first.starts_with("op.yaml:14:11 warning wildcard-toleration Deployment/tigera-operator/tigera-operator: toleration {operator: Exists, effect: NoExecute} has no key"),
        "{out}"
    );
    assert!(
        out.contains(
            "\n  fix:\n    - {key: <the taint's key>, operator: Exists, effect: NoExecute}\n"
        ),
        "{out}"
    );
}

#[test]
fn json_output_and_exit_codes_follow_fail_on() {
    let dir = tmp_with(&[("op.yaml", WILD)]);
    let (code, out, _) = repel(dir.path(), &["lint", "-f", "op.yaml", "-o", "json"]);
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(&out).unwrap();
    let f = &v["findings"][0];
    assert_eq!(f["rule"], "wildcard-toleration");
    assert_eq!(f["severity"], "warning");
    assert_eq!(f["object"], "Deployment/tigera-operator/tigera-operator");
    assert_eq!(f["file"], "op.yaml");
    assert_eq!(
        (f["line"].as_u64(), f["column"].as_u64()),
        (Some(14), Some(11))
    );
    assert_eq!(f["path"], "spec.template.spec.tolerations[0]");
    assert_eq!(
        v["summary"],
        serde_json::json!({"error": 0, "warning": 2, "info": 0})
    );
    // Warnings do not fail a run that fails on errors only.
    assert_eq!(
        repel(dir.path(), &["lint", "-f", "op.yaml", "--fail-on", "error"]).0,
        0
    );
    // Unusable input: 2.
    std::fs::write(dir.path().join("bad.yaml"), "kind: [").unwrap();
    assert_eq!(repel(dir.path(), &["lint", "-f", "bad.yaml"]).0, 2);
    assert_eq!(
        repel(
            dir.path(),
            &["lint", "-f", "op.yaml", "--disable", "no-such-rule"]
        )
        .0,
        2
    );
}

#[test]
fn disable_config_and_the_ignore_annotation_turn_rules_off() {
    let annotated = WILD.replace(
        "  namespace: tigera-operator\n",
        "  namespace: tigera-operator\n  annotations:\n    repel.dev/lint-ignore: wildcard-toleration, noexecute-forever\n",
    );
    let dir = tmp_with(&[("op.yaml", WILD), ("ann.yaml", &annotated)]);
    assert_eq!(repel(dir.path(), &["lint", "-f", "ann.yaml"]).0, 0);
    let (code, out, _) = repel(
        dir.path(),
        &[
            "lint",
            "-f",
            "op.yaml",
            "--disable",
            "wildcard-toleration,noexecute-forever",
        ],
    );
    assert_eq!(
        (code, out.trim_end()),
        (0, "0 findings: 0 errors, 0 warnings, 0 info")
    );
    std::fs::write(
        dir.path().join(".repel.yaml"),
        "lint:\n  allow: {wildcard-toleration: [\"tigera-operator/*\"]}\n  severity: {noexecute-forever: info}\n",
    )
    .unwrap();
    let (code, out, _) = repel(dir.path(), &["lint", "-f", "op.yaml", "-o", "json"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert!(
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["rule"] != "wildcard-toleration"),
        "{out}"
    );
    assert_eq!(
        code,
        u8::from(v["summary"]["warning"].as_u64() > Some(0)) as i32,
        "{out}"
    );
}

#[test]
fn explain_prints_the_rule_and_refuses_an_unknown_one() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, _) = repel(dir.path(), &["lint", "--explain", "legacy-master-only"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("legacy-master-only (warning)\n"), "{out}");
    assert!(out.contains("KEP-2067"), "{out}");
    let (code, _, err) = repel(dir.path(), &["lint", "--explain", "nope"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("unknown rule \"nope\"; the rules are: toleration-never-matches,"),
        "{err}"
    );
}

/// Every file of the shared corpus linted on its own: each finding as
/// `FILE:LINE:COL severity rule object: message`, reviewed finding by finding (the commit that
/// changed this snapshot says what each is). Files without findings are listed as clean.
#[test]
fn the_real_corpus_findings_are_the_reviewed_ones() {
    let Some(dir) = crate::util::real_corpus() else {
        return;
    };
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".yaml") || n.ends_with(".yml") || n.ends_with(".json"))
        .collect();
    files.sort();
    assert!(files.len() >= 60, "the corpus has {} files", files.len());
    let mut report = String::new();
    for f in &files {
        let (code, out, err) = repel(&dir, &["lint", "-f", f, "-o", "json", "--fail-on", "none"]);
        if code == 2 {
            report.push_str(&format!(
                "{f}: unusable: {}\n",
                err.lines().last().unwrap_or_default()
            ));
            continue;
        }
        assert_eq!(code, 0, "{f}: {err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        let findings = v["findings"].as_array().unwrap();
        if findings.is_empty() {
            report.push_str(&format!("{f}: clean\n"));
        }
        for x in findings {
            report.push_str(&format!(
                "{}:{}:{} {} {} {}: {}\n",
                x["file"].as_str().unwrap(),
                x["line"],
                x["column"],
                x["severity"].as_str().unwrap(),
                x["rule"].as_str().unwrap(),
                x["object"].as_str().unwrap(),
                x["message"].as_str().unwrap()
            ));
        }
    }
    insta::assert_snapshot!("lint_corpus", report);
}

/// The manual's rule table (docs/src/commands/lint.md) lists every rule with its severity, in
/// the order they run.
#[test]
fn the_readme_table_lists_every_rule() {
    let readme = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/src/commands/lint.md"),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (_, out, err) = repel(dir.path(), &["lint", "--explain", "nope"]);
    let ids = err
        .split("the rules are: ")
        .nth(1)
        .unwrap_or_default()
        .trim()
        .to_string();
    assert!(!ids.is_empty(), "{out}{err}");
    let mut at = 0;
    for id in ids.split(", ") {
        let (_, head, _) = repel(dir.path(), &["lint", "--explain", id]);
        let severity = head
            .lines()
            .next()
            .unwrap()
            .rsplit('(')
            .next()
            .unwrap()
            .trim_end_matches(')');
        let row = format!("| `{id}` | {severity} |");
        let found = readme[at..]
            .find(&row)
            .unwrap_or_else(|| panic!("docs/src/commands/lint.md lacks {row} (in order)"));
        at += found;
    }
}

/// `--emit validating-admission-policy`: the policies and bindings as YAML documents after the
/// comment naming what a policy cannot express; `excludeNamespaces` from the configuration.
#[test]
fn emit_writes_policies_and_bindings() {
    let dir = tmp_with(&[(
        ".repel.yaml",
        "lint:\n  excludeNamespaces: [kube-system]\n  severity: {legacy-master-only: error}\n",
    )]);
    let (code, out, err) = repel(
        dir.path(),
        &["lint", "--emit", "validating-admission-policy"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("# repel lint --emit validating-admission-policy"),
        "{out}"
    );
    assert!(out.contains("#   targeting-without-toleration: "), "{out}");
    let docs: Vec<Value> = serde_saphyr::from_multiple(&out).unwrap();
    let kinds: Vec<(&str, &str)> = docs
        .iter()
        .map(|d| {
            (
                d["kind"].as_str().unwrap(),
                d["metadata"]["name"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("ValidatingAdmissionPolicy", "deny.tolerations.repel.dev"),
            (
                "ValidatingAdmissionPolicyBinding",
                "deny.tolerations.repel.dev"
            ),
            ("ValidatingAdmissionPolicy", "warn.tolerations.repel.dev"),
            (
                "ValidatingAdmissionPolicyBinding",
                "warn.tolerations.repel.dev"
            ),
        ]
    );
    assert_eq!(
        docs[1]["spec"]["validationActions"],
        serde_json::json!(["Deny"])
    );
    assert_eq!(
        docs[3]["spec"]["validationActions"],
        serde_json::json!(["Warn", "Audit"])
    );
    assert_eq!(
        docs[3]["spec"]["matchResources"]["namespaceSelector"]["matchExpressions"][0]["values"],
        serde_json::json!(["kube-system"])
    );
}

/// `-o sarif` on a file: the result sits on the toleration, with the rule's index.
#[test]
fn sarif_locates_the_finding() {
    let dir = tmp_with(&[("op.yaml", WILD)]);
    let (code, out, _) = repel(dir.path(), &["lint", "-f", "op.yaml", "-o", "sarif"]);
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["version"], "2.1.0");
    let run = &v["runs"][0];
    let r = &run["results"][0];
    assert_eq!(r["ruleId"], "wildcard-toleration");
    assert_eq!(
        run["tool"]["driver"]["rules"][r["ruleIndex"].as_u64().unwrap() as usize]["id"],
        "wildcard-toleration"
    );
    let loc = &r["locations"][0]["physicalLocation"];
    assert_eq!(loc["artifactLocation"]["uri"], "op.yaml");
    assert_eq!(loc["region"]["startLine"], 14);
    assert_eq!(loc["region"]["startColumn"], 11);
}

/// The emitted policy applied to `repel serve` with the real kubectl: with wildcard-toleration
/// raised to an error, a Deployment with a keyless `Exists` toleration is refused with
/// kube-apiserver's text, another warning rule's finding on it is kubectl's `Warning:` line
/// (a deny and a warn policy both match), and a Deployment with a keyed toleration passes.
#[test]
fn the_emitted_policy_makes_serve_refuse_what_lint_reports() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join(".repel.yaml"),
        "lint:\n  severity: {wildcard-toleration: error}\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("wild.yaml"), WILD).unwrap();
    let keyed = WILD
        .replace("name: tigera-operator", "name: keyed")
        .replace(
            "- effect: NoExecute\n          operator: Exists",
            "- {key: dedicated, operator: Exists}",
        );
    assert!(keyed.contains("key: dedicated"));
    std::fs::write(dir.path().join("keyed.yaml"), &keyed).unwrap();
    let (code, policy, err) = repel(
        dir.path(),
        &["lint", "--emit", "validating-admission-policy"],
    );
    assert_eq!(code, 0, "{err}");
    std::fs::write(dir.path().join("policy.yaml"), &policy).unwrap();
    let (_, findings, _) = repel(dir.path(), &["lint", "-f", "wild.yaml", "-o", "json"]);
    let findings: Value = serde_json::from_str(&findings).unwrap();
    let rules: Vec<&str> = findings["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert!(rules.contains(&"wildcard-toleration"), "{rules:?}");
    assert!(rules.contains(&"noexecute-forever"), "{rules:?}");

    let kubeconfig = dir.path().join("kubeconfig");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_repel"))
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--nodes",
            "1",
            "--kubeconfig-out",
        ])
        .arg(&kubeconfig)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    let cache = tempfile::tempdir().unwrap();
    let kubectl = |args: &[&str]| {
        std::process::Command::new("kubectl")
            .arg(format!("--kubeconfig={}", kubeconfig.display()))
            .arg(format!("--cache-dir={}", cache.path().display()))
            .args(args)
            .current_dir(dir.path())
            .output()
    };
    let applied = match kubectl(&["apply", "-f", "policy.yaml"]) {
        Ok(out) => out,
        Err(e) => {
            let _ = child.kill();
            let _ = child.wait();
            assert!(
                std::env::var("REPEL_SKIP_KUBECTL_TESTS").as_deref() == Ok("1"),
                "kubectl: {e}: install kubectl 1.27 or newer, or set REPEL_SKIP_KUBECTL_TESTS=1"
            );
            return;
        }
    };
    let text = |o: &std::process::Output| {
        (
            o.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let (code, out, err) = text(&applied);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = text(&kubectl(&["create", "namespace", "tigera-operator"]).unwrap());
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = text(&kubectl(&["apply", "-f", "wild.yaml"]).unwrap());
    let (code2, out2, err2) = text(&kubectl(&["apply", "-f", "keyed.yaml"]).unwrap());
    let (_, listed, _) =
        text(&kubectl(&["get", "deployments", "-n", "tigera-operator", "-o", "name"]).unwrap());
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.contains(
            "ValidatingAdmissionPolicy 'deny.tolerations.repel.dev' with binding \
             'deny.tolerations.repel.dev' denied request: wildcard-toleration: Deployment \
             tigera-operator: "
        ),
        "{err}"
    );
    assert!(
        err.contains(
            "Warning: Validation failed for ValidatingAdmissionPolicy 'warn.tolerations.repel.dev' \
             with binding 'warn.tolerations.repel.dev': noexecute-forever: Deployment \
             tigera-operator: "
        ),
        "{err}"
    );
    assert_eq!((code2, err2.as_str()), (0, ""), "{out2}");
    assert_eq!(listed.trim(), "deployment.apps/keyed");
}
