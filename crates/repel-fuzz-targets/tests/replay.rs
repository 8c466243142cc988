//! Every fuzz target over its committed corpus (`fuzz/corpus/<target>/`), then over inputs
//! made from it by the seeded mutator: no input may panic. This is what CI runs in place of
//! cargo-fuzz (no nightly, no libFuzzer); `scripts/fuzz-bench.sh` runs the real fuzzer.
//!
//! An input that panics is written to `$CARGO_TARGET_TMPDIR/replay-<target>-crash` so that
//! `cargo fuzz run <target> <that file>` (or this test's body) reproduces it. A panic in a task
//! the input spawned counts too (tokio would catch it; libFuzzer's panic hook aborts): a panic
//! hook marks the thread, and the HTTP target's runtime runs its tasks on the calling thread.

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::Once;

use repel_fuzz_targets::mutate::Mutator;
use repel_fuzz_targets::{TARGETS, Target};

fn corpus(name: &str) -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(name);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let label = p.file_name().unwrap().to_string_lossy().into_owned();
            (label, std::fs::read(&p).unwrap())
        })
        .collect()
}

thread_local! {
    /// Set by the panic hook when this thread panics, caught or not.
    static PANICKED: Cell<bool> = const { Cell::new(false) };
}

fn watch_panics() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            PANICKED.with(|p| p.set(true));
            default(info);
        }));
    });
}

fn run_one(target: &Target, label: &str, input: &[u8]) {
    PANICKED.with(|p| p.set(false));
    let unwound = catch_unwind(AssertUnwindSafe(|| (target.run)(input))).is_err();
    if unwound || PANICKED.with(Cell::get) {
        let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("replay-{}-crash", target.name));
        std::fs::write(&path, input).unwrap();
        panic!(
            "target {}: {label} panicked; the input is in {}",
            target.name,
            path.display()
        );
    }
}

fn replay(name: &str) {
    let target = TARGETS
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no target {name}"));
    watch_panics();
    let seeds = corpus(name);
    assert!(
        !seeds.is_empty(),
        "{name}: the committed corpus must not be empty"
    );
    for (label, input) in &seeds {
        run_one(target, label, input);
    }
    let inputs: Vec<Vec<u8>> = seeds.into_iter().map(|(_, i)| i).collect();
    let seed = name.bytes().fold(0x5eed_u64, |h, b| {
        h.wrapping_mul(31).wrapping_add(u64::from(b))
    });
    let mut mutator = Mutator::new(seed);
    for i in 0..target.replay_mutations {
        let base = &inputs[mutator.below(inputs.len())];
        let mutant = mutator.mutate(base, &inputs);
        run_one(target, &format!("mutant {i} (seed {seed})"), &mutant);
    }
}

#[test]
fn manifest() {
    replay("manifest");
}

#[test]
fn taint() {
    replay("taint");
}

#[test]
fn scenario() {
    replay("scenario");
}

#[test]
fn patch() {
    replay("patch");
}

#[test]
fn selector() {
    replay("selector");
}

#[test]
fn http() {
    replay("http");
}

#[test]
fn every_target_is_replayed_here() {
    let names: Vec<&str> = TARGETS.iter().map(|t| t.name).collect();
    assert_eq!(
        names,
        ["manifest", "taint", "scenario", "patch", "selector", "http"]
    );
}
