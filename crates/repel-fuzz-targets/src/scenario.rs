//! A `kind: Scenario` file, read as `repel simulate` and `repel test` read one: the first
//! document of the text through the CLI's reader, [`parse_scenario`], each `kubectl` step's
//! line tokenized (and its `apply -f` files named), and the inline `objects:` read into an
//! inventory as the CLI does. Files the scenario names (`manifests:`, `apply -f`) are not
//! opened: the manifest target reads files' contents.

use repel_engine::kubectl_steps::{apply_files, tokenize};
use repel_engine::scenario::{StepAction, parse_scenario};
use repel_manifest::{Inventory, Source, Validate, answer_strict, parse_documents};
use serde_json::Value;

/// The target body.
pub fn run(data: &[u8]) {
    let Some(text) = crate::text(data) else {
        return;
    };
    let file = "scenario.yaml";
    let docs = match parse_documents(file, text) {
        Ok(docs) => docs,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let Some(doc) = docs.first() else {
        return;
    };
    let scenario = match parse_scenario(&doc.value) {
        Ok(s) => s,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    for step in &scenario.steps {
        if let StepAction::Kubectl(line) = &step.action {
            let _ = tokenize(line);
            let _ = apply_files(line);
        }
    }
    let mut inv = Inventory::with_seed(scenario.seed.unwrap_or(0));
    for (i, obj) in scenario.objects.iter().enumerate() {
        if obj.get("kind").and_then(Value::as_str) == Some("List") {
            continue;
        }
        let source = Source {
            file: format!("{file}: objects").into(),
            doc: 1,
            item: Some(i),
        };
        if let Err(e) = inv.add(source, obj) {
            let _ = e.to_string();
        }
    }
    inv.finish(false);
    let _ = answer_strict(&inv.strict, Validate::Warn);
    let _ = inv.into_cluster_input();
}
