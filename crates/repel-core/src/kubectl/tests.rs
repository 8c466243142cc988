// Tests may unwrap (CONVENTIONS); case tables are tuples.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::type_complexity)]

use super::*;
use crate::testing::taint;
use proptest::prelude::*;

const NS: &str = "NoSchedule";
const PNS: &str = "PreferNoSchedule";
const NE: &str = "NoExecute";

/// Upstream's qualified-name message for a bad name part (two spaces before each "or").
const NAME_REGEX_MSG: &str = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
/// Upstream's label-value message.
const VALUE_REGEX_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

fn removal(key: &str, effect: &str) -> Taint {
    taint(key, "", effect)
}

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn with_time(mut t: Taint, secs: i64) -> Taint {
    t.time_added = Some(Time(Timestamp::from_second(secs).unwrap()));
    t
}

#[test]
fn parse_single_specs() {
    #[rustfmt::skip]
    let cases: Vec<(&str, &str, Result<TaintSpec, String>)> = vec![
        ("key, value and effect add a taint", "key1=value1:NoSchedule", Ok(TaintSpec::Add(taint("key1", "value1", NS)))),
        ("the documented dedicated example", "dedicated=groupName:NoSchedule", Ok(TaintSpec::Add(taint("dedicated", "groupName", NS)))),
        ("key and effect without value", "bar:NoSchedule", Ok(TaintSpec::Add(taint("bar", "", NS)))),
        ("key= with an empty value", "foobar=:NoExecute", Ok(TaintSpec::Add(taint("foobar", "", NE)))),
        ("a prefixed key", "example.com/gpu=true:PreferNoSchedule", Ok(TaintSpec::Add(taint("example.com/gpu", "true", PNS)))),
        ("key- removes every effect of the key", "dedicated-", Ok(TaintSpec::Remove { key: "dedicated".into(), effect: None })),
        ("key:Effect- removes one effect", "dedicated:NoSchedule-", Ok(TaintSpec::Remove { key: "dedicated".into(), effect: Some(NS.into()) })),
        ("key=value:Effect- removes and drops the value", "key1=value1:NoSchedule-", Ok(TaintSpec::Remove { key: "key1".into(), effect: Some(NS.into()) })),
        ("key=:Effect- removes", "qux=:NoSchedule-", Ok(TaintSpec::Remove { key: "qux".into(), effect: Some(NS.into()) })),
        ("a bare key cannot be added", "foo", Err("invalid taint spec: foo".into())),
        ("key=value without effect is a key with '=' in it",
            "foo=abc", Err(format!("invalid taint spec: foo=abc, {NAME_REGEX_MSG}"))),
        ("key=value- is a removal of the key 'key=value', which is invalid",
            "key=value-", Err(format!("invalid taint spec: key=value, {NAME_REGEX_MSG}"))),
        ("two '=' are invalid", "foo=abc=xyz:NoSchedule", Err("invalid taint spec: foo=abc=xyz:NoSchedule".into())),
        ("two ':' (three parts) are invalid", "foo=abc:xyz:NoSchedule", Err("invalid taint spec: foo=abc:xyz:NoSchedule".into())),
        ("three ':' are invalid", "a:b:c:NoSchedule", Err("invalid taint spec: a:b:c:NoSchedule".into())),
        ("an unknown effect", "foo=abc:invalid_effect", Err("invalid taint effect: invalid_effect, unsupported taint effect".into())),
        ("a misspelt effect", "foo=bar:NoExcute", Err("invalid taint effect: NoExcute, unsupported taint effect".into())),
        ("effects are case-sensitive", "foo=bar:noschedule", Err("invalid taint effect: noschedule, unsupported taint effect".into())),
        ("an empty effect", "foo:", Err("invalid taint effect: , unsupported taint effect".into())),
        ("an unknown effect in a removal", "foo:invalid_effect-", Err("invalid taint effect: invalid_effect, unsupported taint effect".into())),
        ("the effect is checked before the key=value split", "a=b=c:Bad", Err("invalid taint effect: Bad, unsupported taint effect".into())),
        ("a negative number is not a label value",
            "a=-200:NoSchedule", Err(format!("invalid taint spec: a=-200:NoSchedule, {VALUE_REGEX_MSG}"))),
        ("a value over 63 characters",
            &*Box::leak(format!("a={}:NoSchedule", "v".repeat(64)).into_boxed_str()),
            Err(format!("invalid taint spec: a={}:NoSchedule, must be no more than 63 characters", "v".repeat(64)))),
        ("an empty key",
            "=v:NoSchedule", Err(format!("invalid taint spec: =v:NoSchedule, name part must be non-empty; {NAME_REGEX_MSG}"))),
        ("an empty key without value",
            ":NoSchedule", Err(format!("invalid taint spec: :NoSchedule, name part must be non-empty; {NAME_REGEX_MSG}"))),
        ("a lone '-' removes the empty key",
            "-", Err(format!("invalid taint spec: , name part must be non-empty; {NAME_REGEX_MSG}"))),
        ("special characters in the key (upstream TestTaint)",
            "nospecialchars^@=banana:NoSchedule", Err(format!("invalid taint spec: nospecialchars^@=banana:NoSchedule, {NAME_REGEX_MSG}"))),
    ];
    for (name, spec, want) in cases {
        let got = spec.parse::<TaintSpec>().map_err(|e| e.to_string());
        assert_eq!(got, want, "{name}");
    }
}

/// Upstream `TestParseTaints` (kubectl `utils_test.go`).
#[test]
fn parse_taints_table() {
    #[rustfmt::skip]
    let cases: Vec<(&str, Vec<&str>, Option<(Vec<Taint>, Vec<Taint>)>)> = vec![
        ("an empty spec is invalid", vec![""], None),
        ("key=value without effect is invalid", vec!["foo=abc"], None),
        ("two '=' are invalid", vec!["foo=abc=xyz:NoSchedule"], None),
        ("three parts are invalid", vec!["foo=abc:xyz:NoSchedule"], None),
        ("a bare key cannot be added", vec!["foo"], None),
        ("an invalid effect for adding", vec!["foo=abc:invalid_effect"], None),
        ("an invalid effect for deleting", vec!["foo:invalid_effect-"], None),
        ("add new taints",
            vec!["foo=abc:NoSchedule", "bar=abc:NoSchedule", "baz:NoSchedule", "qux:NoSchedule", "foobar=:NoSchedule"],
            Some((vec![taint("foo", "abc", NS), taint("bar", "abc", NS), taint("baz", "", NS), taint("qux", "", NS), taint("foobar", "", NS)], vec![]))),
        ("delete taints",
            vec!["foo:NoSchedule-", "bar:NoSchedule-", "qux=:NoSchedule-", "dedicated-"],
            Some((vec![], vec![removal("foo", NS), removal("bar", NS), removal("qux", NS), removal("dedicated", "")]))),
        ("add taints and delete taints (conflicts are checked later)",
            vec!["foo=abc:NoSchedule", "bar=abc:NoSchedule", "baz:NoSchedule", "qux:NoSchedule", "foobar=:NoSchedule", "foo:NoSchedule-", "bar:NoSchedule-", "baz=:NoSchedule-"],
            Some((vec![taint("foo", "abc", NS), taint("bar", "abc", NS), taint("baz", "", NS), taint("qux", "", NS), taint("foobar", "", NS)],
                  vec![removal("foo", NS), removal("bar", NS), removal("baz", NS)]))),
        ("the same key under two effects is fine",
            vec!["a=1:NoSchedule", "a=1:NoExecute"], Some((vec![taint("a", "1", NS), taint("a", "1", NE)], vec![]))),
    ];
    for (name, specs, want) in cases {
        let got = parse_taints(&specs).ok();
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn duplicated_additions_print_go_struct() {
    #[rustfmt::skip]
    let cases = [
        ("same key and effect, second value shown", vec!["a=b:NoSchedule", "a=c:NoSchedule"], "duplicated taints with the same key and effect: {a c NoSchedule <nil>}"),
        ("an empty value leaves two spaces", vec!["a=b:NoExecute", "a:NoExecute"], "duplicated taints with the same key and effect: {a  NoExecute <nil>}"),
    ];
    for (name, specs, want) in cases {
        let err = parse_taints(&specs).unwrap_err();
        assert_eq!(err.to_string(), want, "{name}");
    }
}

#[test]
fn conflicts_between_additions_and_removals() {
    #[rustfmt::skip]
    let cases: Vec<(&str, Vec<Taint>, Vec<Taint>, Option<&str>)> = vec![
        ("the same taint added and removed",
            vec![taint("foo", "", NE)], vec![removal("foo", NE)],
            Some("can not both modify and remove the following taint(s) in the same command: foo=NoExecute")),
        ("a removal by key conflicts with every effect, printed key=",
            vec![taint("foo", "", NS)], vec![removal("foo", "")],
            Some("can not both modify and remove the following taint(s) in the same command: foo=")),
        ("pairs in addition order, then removal order (checked against kubectl v1.32 and v1.33)",
            vec![taint("x", "", NS), taint("x", "", NE)], vec![removal("x", NE), removal("x", "")],
            Some("can not both modify and remove the following taint(s) in the same command: x=, x=NoExecute, x=")),
        ("two keys each conflicting",
            vec![taint("foo", "", NS), taint("bar", "", NE)], vec![removal("foo", NS), removal("bar", NE)],
            Some("can not both modify and remove the following taint(s) in the same command: foo=NoSchedule, bar=NoExecute")),
        ("the same key with another effect does not conflict",
            vec![taint("foo", "", NS)], vec![removal("foo", NE)], None),
        ("different keys do not conflict", vec![taint("foo", "", NS)], vec![removal("bar", "")], None),
    ];
    for (name, add, remove, want) in cases {
        let got = check_conflicts(&add, &remove).err().map(|e| e.to_string());
        assert_eq!(got.as_deref(), want, "{name}");
    }
}

#[test]
fn command_line_errors_in_upstream_order() {
    #[rustfmt::skip]
    let cases: Vec<(&str, Vec<&str>, bool, Option<&str>, &str, bool)> = vec![
        ("a resource after a taint", vec!["nodes", "n1", "a=b:NoSchedule", "n2"], false, None,
            "all resources must be specified before taint changes: n2", false),
        ("a bare key after a taint is a resource", vec!["nodes", "n1", "x=y:NoSchedule", "x"], false, None,
            "all resources must be specified before taint changes: x", false),
        ("no resource", vec!["a=b:NoSchedule"], false, None, NO_RESOURCES, false),
        ("no taint argument", vec!["nodes", "n1"], false, None, NO_TAINT_UPDATE, false),
        ("a bare key is a resource, so no taint update", vec!["nodes", "n1", "foo"], false, None, NO_TAINT_UPDATE, false),
        ("a-b (no trailing dash) is a resource", vec!["nodes", "n1", "a-b"], false, None, NO_TAINT_UPDATE, false),
        ("a bad effect is a usage error", vec!["nodes", "n1", "a=b:Bad"], false, None,
            "invalid taint effect: Bad, unsupported taint effect", true),
        ("spec errors come before the resource type", vec!["pods", "n1", "x=y:Bad"], false, None,
            "invalid taint effect: Bad, unsupported taint effect", true),
        ("upstream's duplicate case fails first on its misspelt effect", vec!["node", "node-name", "foo=bar:NoExcute", "foo=barz:NoExcute"], false, None,
            "invalid taint effect: NoExcute, unsupported taint effect", true),
        ("a known non-node type", vec!["pods", "n1", "x=y:NoSchedule"], false, None,
            "invalid resource type pods, only node types are supported", false),
        ("the type is printed lower-cased", vec!["PODS", "n1", "x=y:NoSchedule"], false, None,
            "invalid resource type pods, only node types are supported", false),
        ("node/NAME is no resource type", vec!["node/n1", "x=y:NoSchedule"], false, None,
            "the server doesn't have a resource type \"node/n1\"", false),
        ("nodes/NAME is no resource type", vec!["nodes/n1", "x=y:NoSchedule"], false, None,
            "the server doesn't have a resource type \"nodes/n1\"", false),
        ("an unknown type", vec!["foo", "n1", "x=y:NoSchedule"], false, None,
            "the server doesn't have a resource type \"foo\"", false),
        ("the resource type comes before conflicts", vec!["pods", "n1", "x=y:NoSchedule", "x-"], false, None,
            "invalid resource type pods, only node types are supported", false),
        ("upstream's add-and-remove case fails first on its misspelt effect", vec!["node", "node-name", "foo=:NoExcute", "foo=:NoExcute-"], false, None,
            "invalid taint effect: NoExcute, unsupported taint effect", true),
        ("a real duplicate is a usage error", vec!["nodes", "n1", "a=b:NoSchedule", "a=c:NoSchedule"], false, None,
            "duplicated taints with the same key and effect: {a c NoSchedule <nil>}", true),
        ("add and remove the same taint", vec!["nodes", "n1", "foo=:NoSchedule", "foo=z:NoSchedule-"], false, None,
            "can not both modify and remove the following taint(s) in the same command: foo=NoSchedule", false),
        ("conflicts come before the flag checks", vec!["nodes", "n1", "x=y:NoSchedule", "x-"], true, Some("a=b"),
            "can not both modify and remove the following taint(s) in the same command: x=", false),
        ("--all with a selector", vec!["nodes", "a=b:NoSchedule"], true, Some("x=y"), ALL_WITH_SELECTOR, false),
        ("--all with a selector and names", vec!["nodes", "n1", "a=b:NoSchedule"], true, Some("x=y"), ALL_WITH_SELECTOR, false),
        ("no name without --all or selector", vec!["nodes", "a=b:NoSchedule"], false, None, NO_RESOURCE_NAME, false),
        ("an empty selector counts as none", vec!["nodes", "a=b:NoSchedule"], false, Some(""), NO_RESOURCE_NAME, false),
    ];
    for (name, args, all, selector, want, usage) in cases {
        let err = parse_taint_command(&args, all, selector, false).unwrap_err();
        assert_eq!(err.to_string(), want, "{name}");
        assert_eq!(err.is_usage_error(), usage, "{name}: usage error");
    }
}

#[test]
fn accepted_command_lines() {
    #[rustfmt::skip]
    let cases: Vec<(&str, Vec<&str>, bool, Option<&str>, Vec<&str>)> = vec![
        ("nodes NAME", vec!["nodes", "n1", "k=v:NoSchedule"], false, None, vec!["n1"]),
        ("node NAME", vec!["node", "n1", "k=v:NoSchedule"], false, None, vec!["n1"]),
        ("no NAME (short name)", vec!["no", "n1", "k=v:NoSchedule"], false, None, vec!["n1"]),
        ("the type is case-insensitive", vec!["Nodes", "n1", "k=v:NoSchedule"], false, None, vec!["n1"]),
        ("a .version suffix is dropped", vec!["nodes.v1", "n1", "k=v:NoSchedule"], false, None, vec!["n1"]),
        ("a trailing dot is dropped", vec!["node.", "n1", "k=v:NoSchedule"], false, None, vec!["n1"]),
        ("several names", vec!["nodes", "n1", "n2", "k-"], false, None, vec!["n1", "n2"]),
        ("--all without names", vec!["nodes", "k=v:NoSchedule"], true, None, vec![]),
        ("a selector without names", vec!["node", "k=v:PreferNoSchedule"], false, Some("myLabel=X"), vec![]),
    ];
    for (name, args, all, selector, names) in cases {
        let cmd = parse_taint_command(&args, all, selector, true)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(cmd.node_names, strs(&names), "{name}");
        assert!(cmd.overwrite, "{name}");
    }
}

/// Upstream `TestValidateFlags`, plus which nodes kubectl then visits.
#[test]
fn node_selection() {
    let sel = |args: &[&str], all, selector| {
        parse_taint_command(args, all, selector, false).map(|c| match c.selection() {
            NodeSelection::Names(n) => format!("names {n:?}"),
            NodeSelection::All => "all".to_string(),
            NodeSelection::Selector(s) => format!("selector {s}"),
        })
    };
    #[rustfmt::skip]
    let cases: Vec<(&str, Vec<&str>, bool, Option<&str>, Result<&str, TaintCommandError>)> = vec![
        ("with selector and without all", vec!["node", "a=b:NoSchedule"], false, Some("myLabel=X"), Ok("selector myLabel=X")),
        ("without selector, with all", vec!["node", "a=b:NoSchedule"], true, None, Ok("all")),
        ("with selector and with all", vec!["node", "a=b:NoSchedule"], true, Some("myLabel=X"), Err(TaintCommandError::AllWithSelector)),
        ("neither and no node name", vec!["node", "a=b:NoSchedule"], false, None, Err(TaintCommandError::NoResourceName)),
        ("neither, with a node name", vec!["node", "node-name", "a=b:NoSchedule"], false, None, Ok("names [\"node-name\"]")),
        ("--all ignores names (kubectl v1.32 taints every node)", vec!["nodes", "n1", "a=b:NoSchedule"], true, None, Ok("all")),
        ("a selector ignores names", vec!["nodes", "n1", "a=b:NoSchedule"], false, Some("x=y"), Ok("selector x=y")),
    ];
    for (name, args, all, selector, want) in cases {
        assert_eq!(
            sel(&args, all, selector),
            want.map(str::to_string),
            "{name}"
        );
    }
}

#[test]
fn command_errors_print_like_kubectl() {
    #[rustfmt::skip]
    let cases: Vec<(&str, Vec<&str>, bool, Option<&str>, &str)> = vec![
        ("a usage error gets the help line", vec!["nodes", "n1", "a=b:Bad"],  false, None,
            "error: invalid taint effect: Bad, unsupported taint effect\nSee 'kubectl taint -h' for help and examples\n"),
        ("a plain error", vec!["nodes", "n1"], false, None, "error: at least one taint update is required\n"),
        ("a conflict has no help line", vec!["nodes", "n1", "foo=:NoSchedule", "foo-"], false, None,
            "error: can not both modify and remove the following taint(s) in the same command: foo=\n"),
        ("an unknown resource type has no error: prefix", vec!["node/n1", "x=y:NoSchedule"], false, None,
            "the server doesn't have a resource type \"node/n1\"\n"),
    ];
    for (name, args, all, selector, want) in cases {
        let err = parse_taint_command(&args, all, selector, false).unwrap_err();
        assert_eq!(err.kubectl_stderr(), want, "{name}");
    }
}

/// Upstream `TestReorganizeTaints` (kubectl `utils_test.go`), node taints `[foo=bar:NoSchedule]`.
#[test]
fn reorganize_taints_table() {
    let old = vec![taint("foo", "bar", NS)];
    #[rustfmt::skip]
    let cases: Vec<(&str, bool, Vec<Taint>, Vec<Taint>, Result<(Vec<Taint>, TaintOperation), ()>)> = vec![
        ("no changes with overwrite is true", true, vec![], vec![], Ok((old.clone(), TaintOperation::Modified))),
        ("no changes with overwrite is false", false, vec![], vec![], Ok((old.clone(), TaintOperation::Untainted))),
        ("add new taint: added first", false, vec![taint("foo_1", "", NE)], vec![],
            Ok((vec![taint("foo_1", "", NE), taint("foo", "bar", NS)], TaintOperation::Tainted))),
        ("delete taint with effect", false, vec![], vec![removal("foo", NS)], Ok((vec![], TaintOperation::Untainted))),
        ("delete taint with no effect", false, vec![], vec![removal("foo", "")], Ok((vec![], TaintOperation::Untainted))),
        ("delete non-exist taint", false, vec![], vec![removal("foo_1", NS)], Err(())),
        ("add new taint and delete old one", false, vec![taint("foo_1", "", NS)], vec![removal("foo", NS)],
            Ok((vec![taint("foo_1", "", NS)], TaintOperation::Modified))),
    ];
    for (name, overwrite, add, remove, want) in cases {
        let got = apply_taints("node-name", &old, &add, &remove, overwrite).map_err(|_| ());
        assert_eq!(got, want, "{name}");
        assert_edit_is_apply_taints(name, &old, &add, &remove, overwrite);
    }
}

/// [`plan_taints`]' edit, applied in place or copied, is [`apply_taints`]' result, and it
/// changes the list exactly when that result differs.
fn assert_edit_is_apply_taints(
    name: &str,
    old: &[Taint],
    add: &[Taint],
    remove: &[Taint],
    overwrite: bool,
) {
    let want = apply_taints("n", old, add, remove, overwrite);
    let edit = plan_taints("n", old, add, remove, overwrite);
    match (want, edit) {
        (Ok((list, op)), Ok(edit)) => {
            assert_eq!(edit.operation, op, "{name}");
            assert_eq!(edit.applied_to(old), list, "{name}");
            let mut in_place = old.to_vec();
            edit.apply(&mut in_place);
            assert_eq!(in_place, list, "{name}: in place");
            assert_eq!(edit.changes(old), list != old, "{name}: changes");
        }
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{name}"),
        (a, b) => panic!("{name}: {a:?} against {b:?}"),
    }
}

/// `reorganizeTaints` keeps an old taint only when its key and effect are not yet in the list
/// it builds — the additions, then the old taints kept so far — so a node that (against
/// validation) repeats a key and effect keeps the first, and the order is kept on a node with
/// many taints.
#[test]
fn reorganize_taints_keeps_the_first_of_each_key_and_effect_in_order() {
    // (name, old, additions, the list with --overwrite, the operation without it: `None` when
    // an addition's key and effect exist, which needs --overwrite)
    #[rustfmt::skip]
    let cases: Vec<(&str, Vec<Taint>, Vec<Taint>, Vec<Taint>, Option<TaintOperation>)> = vec![
        ("a repeated old key and effect keeps its first value (and the shorter list reads as tainted)",
            vec![taint("a", "1", NS), taint("b", "", NE), taint("a", "2", NS)], vec![],
            vec![taint("a", "1", NS), taint("b", "", NE)], Some(TaintOperation::Tainted)),
        ("the same key with another effect is another taint",
            vec![taint("a", "1", NS), taint("a", "2", NE)], vec![],
            vec![taint("a", "1", NS), taint("a", "2", NE)], Some(TaintOperation::Untainted)),
        ("an addition replaces the old taint of its key and effect, whatever its value",
            vec![taint("a", "1", NS), taint("b", "", NE)], vec![taint("b", "x", NE)],
            vec![taint("b", "x", NE), taint("a", "1", NS)], None),
        ("an addition goes first, the old taints follow in their order",
            (0..500).map(|i| taint(&format!("k{i}"), "v", NS)).collect(), vec![taint("new", "", PNS)],
            std::iter::once(taint("new", "", PNS))
                .chain((0..500).map(|i| taint(&format!("k{i}"), "v", NS)))
                .collect(),
            Some(TaintOperation::Tainted)),
    ];
    for (name, old, add, want, op) in cases {
        for overwrite in [true, false] {
            assert_edit_is_apply_taints(name, &old, &add, &[], overwrite);
        }
        let got = apply_taints("n1", &old, &add, &[], true).map(|(t, _)| t);
        assert_eq!(got.ok(), Some(want), "{name}");
        let got_op = apply_taints("n1", &old, &add, &[], false).map(|(_, o)| o);
        assert_eq!(got_op.ok(), op, "{name}: without --overwrite");
    }
}

/// Upstream `TestTaint` (kubectl `taint_test.go`) success and node-state cases, end to end
/// from the argument list.
#[test]
fn taint_command_end_to_end() {
    #[rustfmt::skip]
    let cases: Vec<(&str, Vec<Taint>, Vec<&str>, bool, Result<(Vec<Taint>, &str), &str>)> = vec![
        ("taints a node with effect NoSchedule", vec![], vec!["foo=bar:NoSchedule"], false,
            Ok((vec![taint("foo", "bar", NS)], "tainted"))),
        ("taints a node with effect PreferNoSchedule", vec![], vec!["foo=bar:PreferNoSchedule"], false,
            Ok((vec![taint("foo", "bar", PNS)], "tainted"))),
        ("update an existing taint on the node, change the value from bar to barz",
            vec![taint("foo", "bar", NS)], vec!["foo=barz:NoSchedule"], true,
            Ok((vec![taint("foo", "barz", NS)], "modified"))),
        ("taints a node with two taints", vec![], vec!["dedicated=namespaceA:NoSchedule", "foo=bar:PreferNoSchedule"], false,
            Ok((vec![taint("dedicated", "namespaceA", NS), taint("foo", "bar", PNS)], "tainted"))),
        ("two taints with the same key, remove one by exact key and effect",
            vec![taint("dedicated", "namespaceA", NS), taint("dedicated", "namespaceA", PNS)], vec!["dedicated:NoSchedule-"], false,
            Ok((vec![taint("dedicated", "namespaceA", PNS)], "untainted"))),
        ("removal by key drops every effect of the key",
            vec![taint("dedicated", "namespaceA", NS), taint("dedicated", "namespaceA", PNS), taint("other", "", NE)], vec!["dedicated-"], false,
            Ok((vec![taint("other", "", NE)], "untainted"))),
        ("update one taint and remove the other, with --overwrite",
            vec![taint("dedicated", "namespaceA", NS), taint("foo", "bar", PNS)], vec!["dedicated:NoSchedule-", "foo=barz:PreferNoSchedule"], true,
            Ok((vec![taint("foo", "barz", PNS)], "modified"))),
        ("can't update an existing taint without --overwrite",
            vec![taint("foo", "bar", NS)], vec!["foo=bar:NoSchedule"], false,
            Err("node node-name already has foo taint(s) with same effect(s) and --overwrite is false")),
        ("the value does not matter for 'already has', keys listed in argument order",
            vec![taint("foo", "held", NS), taint("dedicated", "a", PNS)], vec!["foo=bar:NoSchedule", "dedicated=b:PreferNoSchedule"], false,
            Err("node node-name already has foo,dedicated taint(s) with same effect(s) and --overwrite is false")),
        ("a removal ignores the value: foo=bar:NoSchedule- removes foo=held:NoSchedule",
            vec![taint("foo", "held", NS), taint("dedicated", "a", PNS)], vec!["foo=bar:NoSchedule-"], false,
            Ok((vec![taint("dedicated", "a", PNS)], "untainted"))),
        ("a pure removal with --overwrite is 'modified'",
            vec![taint("foo", "held", NS)], vec!["foo-"], true, Ok((vec![], "modified"))),
        ("re-adding an identical taint with --overwrite is 'modified'",
            vec![taint("foo", "held", NS)], vec!["foo=held:NoSchedule"], true, Ok((vec![taint("foo", "held", NS)], "modified"))),
        ("an addition plus a removal is 'modified' without --overwrite",
            vec![taint("foo", "held", NS)], vec!["new=v:NoExecute", "foo-"], false, Ok((vec![taint("new", "v", NE)], "modified"))),
        ("with --overwrite the added taint moves to the front",
            vec![taint("a", "1", NS), taint("b", "2", NS), taint("c", "3", NS)], vec!["b=20:NoSchedule"], true,
            Ok((vec![taint("b", "20", NS), taint("a", "1", NS), taint("c", "3", NS)], "modified"))),
        ("the same key with a new effect is a new taint",
            vec![taint("a", "1", NS)], vec!["a=1:NoExecute"], false,
            Ok((vec![taint("a", "1", NE), taint("a", "1", NS)], "tainted"))),
        ("removing an absent taint", vec![taint("foo", "held", NS)], vec!["x-"], false, Err("taint \"x\" not found")),
        ("removing an absent effect", vec![taint("foo", "held", NS)], vec!["foo:NoExecute-"], false,
            Err("taint \"foo:NoExecute\" not found")),
        ("an addition with a failed removal changes nothing", vec![], vec!["new=v:NoExecute", "zz-"], false,
            Err("taint \"zz\" not found")),
        ("removing the same key twice: the second finds nothing", vec![taint("foo", "held", NS)], vec!["foo-", "foo-"], false,
            Err("taint \"foo\" not found")),
        ("several failed removals aggregate", vec![], vec!["zz-", "yy:NoExecute-"], false,
            Err("[taint \"zz\" not found, taint \"yy:NoExecute\" not found]")),
    ];
    for (name, old, specs, overwrite, want) in cases {
        let mut args = vec!["node", "node-name"];
        args.extend(&specs);
        let cmd = parse_taint_command(&args, false, None, overwrite)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let got = apply_taints(
            "node-name",
            &old,
            &cmd.to_add,
            &cmd.to_remove,
            cmd.overwrite,
        )
        .map(|(t, op)| (t, op.as_str()))
        .map_err(|e| e.to_string());
        assert_eq!(got, want.map_err(str::to_string), "{name}");
        assert_edit_is_apply_taints(name, &old, &cmd.to_add, &cmd.to_remove, cmd.overwrite);
    }
}

/// The seed examples: add then remove, as the real kubectl prints them.
#[test]
fn seed_add_then_remove() {
    let add = parse_taint_command(
        &["nodes", "node1", "key1=value1:NoSchedule"],
        false,
        None,
        false,
    )
    .unwrap();
    let (after_add, op) = apply_taints("node1", &[], &add.to_add, &add.to_remove, false).unwrap();
    assert_eq!(after_add, vec![taint("key1", "value1", NS)], "added");
    assert_eq!(success_line("node1", op), "node/node1 tainted");

    let remove = parse_taint_command(
        &["nodes", "node1", "key1=value1:NoSchedule-"],
        false,
        None,
        false,
    )
    .unwrap();
    let (after_remove, op) = apply_taints(
        "node1",
        &after_add,
        &remove.to_add,
        &remove.to_remove,
        false,
    )
    .unwrap();
    assert!(after_remove.is_empty(), "removed");
    assert_eq!(success_line("node1", op), "node/node1 untainted");

    let again = apply_taints(
        "node1",
        &after_remove,
        &remove.to_add,
        &remove.to_remove,
        false,
    )
    .unwrap_err();
    assert_eq!(
        again.kubectl_stderr(),
        "error: taint \"key1:NoSchedule\" not found\n",
        "removing twice"
    );
}

#[test]
fn apply_errors_print_like_kubectl() {
    let already = ApplyTaintError::AlreadyExists {
        node: "n1".into(),
        keys: strs(&["foo"]),
    };
    let one = ApplyTaintError::NotFound {
        taints: strs(&["zz"]),
    };
    let two = ApplyTaintError::NotFound {
        taints: strs(&["zz", "yy:NoExecute"]),
    };
    #[rustfmt::skip]
    let cases: Vec<(&str, &ApplyTaintError, Vec<&str>, &str)> = vec![
        ("'already has' is one error line", &already,
            vec!["node n1 already has foo taint(s) with same effect(s) and --overwrite is false"],
            "error: node n1 already has foo taint(s) with same effect(s) and --overwrite is false\n"),
        ("one not-found keeps the error: prefix", &one, vec!["taint \"zz\" not found"], "error: taint \"zz\" not found\n"),
        ("several not-found print one per line without prefix", &two,
            vec!["taint \"zz\" not found", "taint \"yy:NoExecute\" not found"],
            "taint \"zz\" not found\ntaint \"yy:NoExecute\" not found\n"),
    ];
    for (name, err, lines, stderr) in cases {
        assert_eq!(err.lines(), strs(&lines), "{name}: lines");
        assert_eq!(err.kubectl_stderr(), stderr, "{name}: stderr");
    }
    #[rustfmt::skip]
    let nodes: Vec<(&str, Vec<ApplyTaintError>, &str)> = vec![
        ("one node's error alone", vec![two.clone()], "taint \"zz\" not found\ntaint \"yy:NoExecute\" not found\n"),
        ("two nodes: a line per node, several not-found bracketed", vec![two.clone(), two.clone()],
            "[taint \"zz\" not found, taint \"yy:NoExecute\" not found]\n[taint \"zz\" not found, taint \"yy:NoExecute\" not found]\n"),
        ("two nodes: no error: prefix", vec![already.clone(), one.clone()],
            "node n1 already has foo taint(s) with same effect(s) and --overwrite is false\ntaint \"zz\" not found\n"),
    ];
    for (name, errs, want) in nodes {
        assert_eq!(kubectl_stderr_for_nodes(&errs), want, "{name}");
    }
}

#[test]
fn operation_words() {
    #[rustfmt::skip]
    let cases = [
        (TaintOperation::Tainted, "tainted", TAINTED),
        (TaintOperation::Untainted, "untainted", UNTAINTED),
        (TaintOperation::Modified, "modified", MODIFIED),
    ];
    for (op, word, constant) in cases {
        assert_eq!(op.to_string(), word, "{word}");
        assert_eq!(constant, word, "{word}");
    }
    assert_eq!(USAGE_HINT, "See 'kubectl taint -h' for help and examples");
}

#[test]
fn kubectl_keeps_old_time_added_and_never_sets_one() {
    let old = vec![
        with_time(taint("kept", "", NE), 100),
        with_time(taint("replaced", "a", NE), 200),
    ];
    let cmd = parse_taint_command(
        &["node", "n1", "replaced=b:NoExecute", "new=v:NoExecute"],
        false,
        None,
        true,
    )
    .unwrap();
    let (got, op) = apply_taints("n1", &old, &cmd.to_add, &cmd.to_remove, cmd.overwrite).unwrap();
    assert_eq!(op, TaintOperation::Modified);
    #[rustfmt::skip]
    let want = vec![taint("replaced", "b", NE), taint("new", "v", NE), with_time(taint("kept", "", NE), 100)];
    assert_eq!(
        got, want,
        "additions carry no timeAdded; the kept taint keeps its own"
    );
}

#[test]
fn stamping_time_added() {
    let now = Timestamp::from_second(1_000).unwrap();
    let mut taints = vec![
        taint("a", "", NS),
        with_time(taint("b", "", NE), 5),
        taint("c", "", PNS),
    ];
    stamp_time_added(&mut taints, now);
    assert!(
        taints.iter().all(|t| t.time_added == Some(Time(now))),
        "every effect is stamped, an earlier time is overwritten"
    );
}

/// Upstream `AddOrUpdateTaint` and the node lifecycle controller's add step.
#[test]
fn controller_add_or_update() {
    let now = Timestamp::from_second(1_000).unwrap();
    let unreachable = "node.kubernetes.io/unreachable";
    #[rustfmt::skip]
    let cases: Vec<(&str, Vec<Taint>, Vec<Taint>, Option<Vec<Taint>>)> = vec![
        ("a missing taint is appended with timeAdded = now",
            vec![taint("user", "x", NS)], vec![taint(unreachable, "", NE)],
            Some(vec![taint("user", "x", NS), with_time(taint(unreachable, "", NE), 1_000)])),
        ("NoSchedule condition taints are stamped too",
            vec![], vec![taint("node.kubernetes.io/not-ready", "", NS)],
            Some(vec![with_time(taint("node.kubernetes.io/not-ready", "", NS), 1_000)])),
        ("an identical taint already stamped now: no update",
            vec![with_time(taint(unreachable, "", NE), 1_000)], vec![taint(unreachable, "", NE)], None),
        ("an existing taint with another time is replaced in place",
            vec![taint("a", "", NS), with_time(taint(unreachable, "", NE), 7), taint("b", "", NS)], vec![taint(unreachable, "", NE)],
            Some(vec![taint("a", "", NS), with_time(taint(unreachable, "", NE), 1_000), taint("b", "", NS)])),
        ("nothing to add: no update", vec![taint("a", "", NS)], vec![], None),
    ];
    for (name, node, add, want) in cases {
        assert_eq!(add_controller_taints(&node, &add, now), want, "{name}");
    }
    let empty_value = Taint {
        value: Some(String::new()),
        ..taint("k", "", NS)
    };
    assert_eq!(
        add_or_update_taint(&[taint("k", "", NS)], &empty_value),
        None,
        "an empty value equals an unset one"
    );
    assert_eq!(
        add_or_update_taint(&[taint("k", "a", NS)], &taint("k", "b", NS)),
        Some(vec![taint("k", "b", NS)]),
        "a new value replaces the old"
    );
}

#[test]
fn taint_argument_classification() {
    #[rustfmt::skip]
    let cases = [
        ("contains '='", "k=v", true), ("contains ':'", "k:NoSchedule", true), ("ends in '-'", "k-", true),
        ("a plain name", "node-1", false), ("a lone dash", "-", true), ("empty", "", false),
    ];
    for (name, arg, want) in cases {
        assert_eq!(is_taint_arg(arg), want, "{name}");
    }
}

fn dns_label() -> impl Strategy<Value = String> {
    "[a-z0-9]([-a-z0-9]{0,8}[a-z0-9])?"
}

fn key() -> impl Strategy<Value = String> {
    let name = "[A-Za-z0-9]([-A-Za-z0-9_.]{0,20}[A-Za-z0-9])?";
    (
        proptest::option::of(proptest::collection::vec(dns_label(), 1..3)),
        name,
    )
        .prop_map(|(prefix, name)| match prefix {
            Some(labels) => format!("{}/{name}", labels.join(".")),
            None => name,
        })
}

fn spec() -> impl Strategy<Value = TaintSpec> {
    let value = "([A-Za-z0-9]([-A-Za-z0-9_.]{0,20}[A-Za-z0-9])?)?";
    let effect = prop_oneof![Just(NS), Just(PNS), Just(NE)];
    prop_oneof![
        (key(), value, effect.clone()).prop_map(|(k, v, e)| TaintSpec::Add(taint(&k, &v, e))),
        (key(), proptest::option::of(effect)).prop_map(|(key, e)| TaintSpec::Remove {
            key,
            effect: e.map(str::to_string)
        }),
    ]
}

proptest! {
    /// Display then FromStr gives the same spec, for valid keys, values and effects.
    #[test]
    fn display_round_trips(s in spec()) {
        let text = s.to_string();
        prop_assert!(is_taint_arg(&text), "{text} is classified as a taint argument");
        prop_assert_eq!(text.parse::<TaintSpec>(), Ok(s), "{}", text);
    }
}
