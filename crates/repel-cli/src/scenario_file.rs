//! A scenario file read: its manifests (relative to its folder), its inline objects and its
//! `kubectl apply -f` steps' files, with the command line's admission flags put over its own —
//! what `simulate`, `test`, `demo` and `serve --scenario` run.

use std::path::{Path, PathBuf};

use repel_engine::kubectl_steps::apply_files;
use repel_engine::scenario::{Scenario, StepAction, parse_scenario};
use serde_json::Value;

use crate::output::warn_all;
use crate::{AdmissionFlags, CliError};
use repel_manifest::{
    Inventory, Source, Validate, answer_strict, expand_paths, for_each_object, parse_documents,
    read_text,
};

/// The demo cluster, compiled in (`repel demo`, `repel serve` without manifests).
pub const DEMO_CLUSTER: &str = include_str!("../../../examples/demo/cluster.yaml");
/// The documentation's story over time, compiled in.
pub const DEMO_STORY: &str = include_str!("../../../examples/demo/story.yaml");
/// Where the story lives in the repository.
pub const STORY_PATH: &str = "examples/demo/story.yaml";
/// Where the demo cluster lives in the repository.
pub const DEMO_PATH: &str = "examples/demo/cluster.yaml";

/// A scenario with the command line's admission flags put over its own: a plugin either flag
/// names is dropped from the scenario's lists, then the flags' names are added.
pub fn with_admission_flags(mut scenario: Scenario, flags: &AdmissionFlags) -> Scenario {
    let named = |n: &String| {
        flags
            .enable
            .iter()
            .chain(&flags.disable)
            .any(|m| m.trim() == n.trim())
    };
    let f = &mut scenario.flags;
    f.enable_admission_plugins.retain(|n| !named(n));
    f.disable_admission_plugins.retain(|n| !named(n));
    f.enable_admission_plugins
        .extend(flags.enable.iter().cloned());
    f.disable_admission_plugins
        .extend(flags.disable.iter().cloned());
    scenario
}

/// [`load_scenario`] with the command line's admission flags applied.
pub fn load_with_flags(
    path: &Path,
    flags: &AdmissionFlags,
    validate: Validate,
) -> Result<(Scenario, repel_engine::load::ClusterInput), CliError> {
    let (scenario, input) = load_scenario(path, validate)?;
    Ok((with_admission_flags(scenario, flags), input))
}

/// Reads a scenario file and the manifests it names (relative to its folder) and holds inline.
pub fn load_scenario(
    path: &Path,
    validate: Validate,
) -> Result<(Scenario, repel_engine::load::ClusterInput), CliError> {
    let file = path.display().to_string();
    let text = read_text(path)?;
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    load_scenario_text(&file, &text, &dir, validate)
}

/// A scenario from its text; `file` names it in errors, `dir` is where its paths are relative to.
pub fn load_scenario_text(
    file: &str,
    text: &str,
    dir: &Path,
    validate: Validate,
) -> Result<(Scenario, repel_engine::load::ClusterInput), CliError> {
    let file = file.to_string();
    let docs = parse_documents(&file, text)?;
    let Some(doc) = docs.into_iter().next() else {
        return Err(CliError::Usage(format!("{file}: no scenario in the file")));
    };
    let mut scenario = parse_scenario(&doc.value).map_err(|e| {
        CliError::Usage(
            e.to_string()
                .lines()
                .map(|l| format!("{file}: {l}"))
                .collect::<Vec<_>>()
                .join("\n"),
        )
    })?;
    // `kubectl apply -f FILE` steps read their files here (relative to the scenario), so the
    // engine applies objects.
    for step in &mut scenario.steps {
        let StepAction::Kubectl(line) = &step.action else {
            continue;
        };
        let Some(files) = apply_files(line) else {
            continue;
        };
        let mut objects = Vec::new();
        for f in expand_paths(
            &files.iter().map(|f| dir.join(f)).collect::<Vec<_>>(),
            false,
        )? {
            let fname = f.display().to_string();
            for d in parse_documents(&fname, &read_text(&f)?)? {
                for_each_object(&fname, &d, |_, v| {
                    objects.push(v.clone());
                    Ok(())
                })?;
            }
        }
        step.action = StepAction::Apply(objects);
    }
    let manifests: Vec<PathBuf> = scenario.manifests.iter().map(|m| dir.join(m)).collect();
    let seed = scenario.seed.unwrap_or(0);
    let mut inv = if manifests.is_empty() {
        Inventory::with_seed(seed)
    } else {
        Inventory::load_seeded(&manifests, false, seed)?
    };
    for (i, obj) in scenario.objects.iter().enumerate() {
        let source = Source {
            file: format!("{file}: objects").into(),
            doc: 1,
            item: Some(i),
        };
        if obj.get("kind").and_then(Value::as_str) == Some("List") {
            return Err(CliError::Usage(format!(
                "{file}: objects[{i}]: a List cannot be nested in objects; list its items"
            )));
        }
        inv.add(source, obj)?;
    }
    inv.finish(false);
    warn_all(&inv.warnings);
    answer_strict(&std::mem::take(&mut inv.strict), validate).map_err(CliError::Usage)?;
    let pools = inv.pools()?;
    let mut input = inv.into_cluster_input();
    input.pools = pools;
    input.instance_types = scenario.instance_types.clone();
    Ok((scenario, input))
}
