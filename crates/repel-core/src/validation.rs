//! API-server validation of tolerations and node taints, as upstream `pkg/apis/core/validation`
//! (Kubernetes v1.35) does it: upstream's field paths, error types and messages byte for byte.
//!
//! Every function returns every [`FieldError`] it finds, in upstream's order, and an empty
//! list when the object is valid. [`FieldError`]'s `Display` is Go's `field.Error.Error()`.
//!
//! # Decisions where upstream could not be read directly
//!
//! The v1.35 `validation.go` was not readable in full; the stored copies stop at v1.34. What
//! was read: the v1.34 `ValidateTolerations`, `validateTaintEffect`, `validateNodeTaints`,
//! `validateOnlyAddedTolerations`, `ValidateNode`/`ValidateNodeUpdate`; v1.35's
//! `pkg/api/pod/util.go` (`allowTaintTolerationComparisonOperators`, the ratcheting); the
//! review diff of PR #134665 (KEP-5471) for the `Lt`/`Gt` branch; the discussion of PR
//! #132314 (v1.34, "Nicer value rendering in API errors") for how bad values print.
//!
//! 1. `Lt`/`Gt` while comparison operators are not allowed: `…operator: Unsupported value:
//!    "Gt": supported values: "Equal", "Exists", "Lt", "Gt"` — the list PR #134665's diff
//!    passes to `field.NotSupported` in that branch (all four operators, oddly).
//! 2. Any other unknown operator keeps the pre-1.35 list `"Equal", "Exists"` (the diff does not
//!    show the `default:` branch changing).
//! 3. `Lt`/`Gt` while allowed: each `IsDecimalInteger` message on the toleration's
//!    **value** path, `…value: Invalid value: "0550": must be a valid decimal integer in
//!    canonical form` (an empty value gets `must be non-empty`). No label-value rules and no
//!    int64 range check: an out-of-range value is accepted here and simply never matches.
//! 4. A duplicate taint's bad value is the internal `core.Taint` as JSON, which is what
//!    `ErrorBody` prints since v1.34 (PR #132314: JSON first, `%#v` only when JSON fails).
//!    Internal types have no JSON tags, so the names are Go's:
//!    `{"Key":"foo","Value":"bar","Effect":"NoSchedule","TimeAdded":null}`, and a `timeAdded`
//!    prints as `metav1.Time` marshals it (`"2024-01-01T00:00:00Z"`, seconds, UTC), so no Go
//!    pointer address is involved. The pre-1.34 `%#v` text is [`taint_go_syntax`].

use std::collections::HashSet;
use std::fmt;
use std::fmt::Write as _;

use k8s_openapi::api::core::v1::{Node, PodSpec, Taint, Toleration};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::tz::Offset;

use crate::gates::FeatureGates;
use crate::names::{is_qualified_name, is_valid_label_value};
use crate::taint::{EFFECTS, NO_EXECUTE};
use crate::toleration::{OP_EQUAL, OP_EXISTS, OP_GT, OP_LT, is_decimal_integer};

/// Detail when an empty toleration key comes with an operator other than `Exists`.
pub const MSG_EMPTY_KEY_NEEDS_EXISTS: &str =
    "operator must be Exists when `key` is empty, which means \"match all values and all keys\"";
/// Detail when `tolerationSeconds` is set on a toleration whose effect is not `NoExecute`.
pub const MSG_SECONDS_NEED_NO_EXECUTE: &str =
    "effect must be 'NoExecute' when `tolerationSeconds` is set";
/// Detail when an `Exists` toleration carries a value.
pub const MSG_EXISTS_WITH_VALUE: &str = "value must be empty when `operator` is 'Exists'";
/// Detail of the `Duplicate value` error for two taints with the same key and effect.
pub const MSG_DUPLICATE_TAINT: &str = "taints must be unique by key and effect pair";
/// Detail of the `Forbidden` error when a pod update changes or removes a toleration.
pub const MSG_TOLERATION_MODIFIED: &str =
    "existing toleration can not be modified except its tolerationSeconds";
/// The operators listed for an unknown operator.
pub const SUPPORTED_OPERATORS: [&str; 2] = [OP_EQUAL, OP_EXISTS];
/// The operators listed when `Lt`/`Gt` are used while not allowed (PR #134665).
pub const SUPPORTED_OPERATORS_WITH_COMPARISON: [&str; 4] = [OP_EQUAL, OP_EXISTS, OP_LT, OP_GT];

/// Upstream `field.ErrorType`. `Display` gives upstream's text ("Invalid value", …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorType {
    /// `FieldValueNotFound`: "Not found".
    NotFound,
    /// `FieldValueRequired`: "Required value".
    Required,
    /// `FieldValueDuplicate`: "Duplicate value".
    Duplicate,
    /// `FieldValueInvalid`: "Invalid value".
    Invalid,
    /// `FieldValueNotSupported`: "Unsupported value".
    NotSupported,
    /// `FieldValueForbidden`: "Forbidden".
    Forbidden,
    /// `FieldValueTooLong`: "Too long".
    TooLong,
    /// `FieldValueTooMany`: "Too many".
    TooMany,
    /// `InternalError`: "Internal error".
    Internal,
}

impl ErrorType {
    /// Upstream `ErrorType.String()`: the text shown in messages.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorType::NotFound => "Not found",
            ErrorType::Required => "Required value",
            ErrorType::Duplicate => "Duplicate value",
            ErrorType::Invalid => "Invalid value",
            ErrorType::NotSupported => "Unsupported value",
            ErrorType::Forbidden => "Forbidden",
            ErrorType::TooLong => "Too long",
            ErrorType::TooMany => "Too many",
            ErrorType::Internal => "Internal error",
        }
    }

    /// The machine-readable name (`FieldValueInvalid`, …), a `StatusCause`'s `reason`.
    pub fn reason(self) -> &'static str {
        match self {
            ErrorType::NotFound => "FieldValueNotFound",
            ErrorType::Required => "FieldValueRequired",
            ErrorType::Duplicate => "FieldValueDuplicate",
            ErrorType::Invalid => "FieldValueInvalid",
            ErrorType::NotSupported => "FieldValueNotSupported",
            ErrorType::Forbidden => "FieldValueForbidden",
            ErrorType::TooLong => "FieldValueTooLong",
            ErrorType::TooMany => "FieldValueTooMany",
            ErrorType::Internal => "InternalError",
        }
    }
}

impl fmt::Display for ErrorType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The bad value of a [`FieldError`], as Go's `ErrorBody` prints it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BadValue {
    /// No value is printed (upstream's `omitValue`, and what Required/Forbidden carry).
    Omitted,
    /// A string, printed `%q`-quoted (see [`go_quote`]).
    Str(String),
    /// An integer, printed plainly.
    Int(i64),
    /// Pre-rendered Go `%#v` text, printed as is.
    GoSyntax(String),
    /// Pre-rendered JSON (v1.34+ rendering of composite values), printed as is.
    Json(String),
}

/// One field-level validation error: upstream `field.Error`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {}", self.error_body())]
pub struct FieldError {
    /// The field path, e.g. `spec.tolerations[0].operator`.
    pub field: String,
    /// What kind of error.
    pub error_type: ErrorType,
    /// The offending value.
    pub bad_value: BadValue,
    /// Upstream's detail message; may be empty.
    pub detail: String,
}

impl FieldError {
    /// Upstream `field.Invalid`.
    pub fn invalid(field: impl Into<String>, value: BadValue, detail: impl Into<String>) -> Self {
        Self::new(field, ErrorType::Invalid, value, detail)
    }

    /// Upstream `field.NotSupported`: the detail lists the supported values, each `%q`-quoted.
    pub fn not_supported(field: impl Into<String>, value: &str, supported: &[&str]) -> Self {
        let detail = if supported.is_empty() {
            String::new()
        } else {
            let quoted: Vec<String> = supported.iter().map(|v| go_quote(v)).collect();
            format!("supported values: {}", quoted.join(", "))
        };
        Self::new(
            field,
            ErrorType::NotSupported,
            BadValue::Str(value.to_string()),
            detail,
        )
    }

    /// Upstream `field.Required`.
    pub fn required(field: impl Into<String>, detail: impl Into<String>) -> Self {
        Self::new(field, ErrorType::Required, BadValue::Omitted, detail)
    }

    /// Upstream `field.Duplicate` (no detail; set `detail` afterwards as upstream sometimes does).
    pub fn duplicate(field: impl Into<String>, value: BadValue) -> Self {
        Self::new(field, ErrorType::Duplicate, value, "")
    }

    /// Upstream `field.Forbidden`.
    pub fn forbidden(field: impl Into<String>, detail: impl Into<String>) -> Self {
        Self::new(field, ErrorType::Forbidden, BadValue::Omitted, detail)
    }

    fn new(
        field: impl Into<String>,
        error_type: ErrorType,
        bad_value: BadValue,
        detail: impl Into<String>,
    ) -> Self {
        FieldError {
            field: field.into(),
            error_type,
            bad_value,
            detail: detail.into(),
        }
    }

    /// Upstream `ErrorBody()` (v1.34+): the type; then, except for Required, Forbidden,
    /// Too long and Internal error, `: <value>`; then `: <detail>` when there is a detail.
    /// E.g. ``Invalid value: "value1": value must be empty when `operator` is 'Exists'``.
    pub fn error_body(&self) -> String {
        let t = self.error_type;
        let mut s = match t {
            ErrorType::Required
            | ErrorType::Forbidden
            | ErrorType::TooLong
            | ErrorType::Internal => t.as_str().to_string(),
            _ => match &self.bad_value {
                BadValue::Omitted => t.as_str().to_string(),
                BadValue::Str(v) => format!("{t}: {}", go_quote(v)),
                BadValue::Int(v) => format!("{t}: {v}"),
                BadValue::GoSyntax(v) | BadValue::Json(v) => format!("{t}: {v}"),
            },
        };
        if !self.detail.is_empty() {
            s.push_str(": ");
            s.push_str(&self.detail);
        }
        s
    }
}

/// Options that change what validation accepts (upstream `PodValidationOptions`, the part that
/// concerns tolerations).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ValidationOptions {
    /// `AllowTaintTolerationComparisonOperators`: accept `Lt`/`Gt`.
    pub allow_comparison_operators: bool,
}

impl ValidationOptions {
    /// Options for a create: `Lt`/`Gt` allowed iff `TaintTolerationComparisonOperators` is on.
    pub fn from_gates(g: &FeatureGates) -> Self {
        ValidationOptions {
            allow_comparison_operators: g.taint_toleration_comparison_operators,
        }
    }

    /// Options for an update: upstream `allowTaintTolerationComparisonOperators(oldPodSpec)`
    /// (`pkg/api/pod/util.go`, v1.35), which ratchets:
    ///
    /// 1. allowed when `TaintTolerationComparisonOperators` is on;
    /// 2. allowed, too, when any toleration of the old pod spec uses `Lt` or `Gt`.
    pub fn for_update(g: &FeatureGates, old_tolerations: &[Toleration]) -> Self {
        let in_use = old_tolerations
            .iter()
            .any(|t| matches!(t.operator.as_deref(), Some(OP_LT | OP_GT)));
        ValidationOptions {
            allow_comparison_operators: g.taint_toleration_comparison_operators || in_use,
        }
    }
}

fn s(v: &Option<String>) -> &str {
    v.as_deref().unwrap_or_default()
}

/// Upstream `ValidateLabelName`: one `Invalid` per `IsQualifiedName` message.
fn validate_label_name(name: &str, path: &str) -> Vec<FieldError> {
    is_qualified_name(name)
        .into_iter()
        .map(|msg| FieldError::invalid(path, BadValue::Str(name.to_string()), msg))
        .collect()
}

/// Upstream `validateTaintEffect` (v1.35).
///
/// 1. An empty effect, when not allowed: `Required value` with no detail.
/// 2. Otherwise the effect must be `NoSchedule`, `PreferNoSchedule` or `NoExecute` (the
///    commented-out `NoScheduleNoAdmit` is refused): `Unsupported value` listing the three.
pub fn validate_taint_effect(effect: &str, allow_empty: bool, path: &str) -> Vec<FieldError> {
    if !allow_empty && effect.is_empty() {
        return vec![FieldError::required(path, "")];
    }
    if EFFECTS.contains(&effect) {
        Vec::new()
    } else {
        vec![FieldError::not_supported(path, effect, &EFFECTS)]
    }
}

/// Upstream `ValidateTolerations` (Kubernetes v1.35). For toleration `i`, at `<path>[i]`, in
/// this order:
///
/// 1. A non-empty key must be a qualified name: one `Invalid` per message at `…key`.
/// 2. An empty key needs operator `Exists` (an empty operator fails too): `Invalid` at
///    `…operator` with the operator as value.
/// 3. `tolerationSeconds` set with an effect other than `NoExecute` (an empty one included):
///    `Invalid` at `…effect`.
/// 4. By operator:
///    - `""`/`Equal`: the value must be a label value; the messages joined by `;`, at
///      `…operator` (an upstream quirk: not `…value`);
///    - `Exists`: a non-empty value is `Invalid` at `…operator`;
///    - `Lt`/`Gt` (KEP-5471): `Unsupported value` at `…operator` unless
///      `opts.allow_comparison_operators`; when allowed, the value must be a canonical decimal
///      integer (`IsDecimalInteger`), `Invalid` at `…value` (see the module's decisions);
///    - anything else (`exists`, `In`, …): `Unsupported value`, supported `"Equal", "Exists"`.
/// 5. A non-empty effect must be one of the three effects ([`validate_taint_effect`]).
///
/// Negative and zero `tolerationSeconds` are valid; duplicate tolerations are not checked.
pub fn validate_tolerations(
    tolerations: &[Toleration],
    path: &str,
    opts: &ValidationOptions,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (i, t) in tolerations.iter().enumerate() {
        // A field's path is made only for an error (most tolerations have none).
        let at = |field: &str| format!("{path}[{i}].{field}");
        let (key, op, value, effect) = (s(&t.key), s(&t.operator), s(&t.value), s(&t.effect));

        if !key.is_empty() {
            errs.extend(
                is_qualified_name(key)
                    .into_iter()
                    .map(|msg| FieldError::invalid(at("key"), BadValue::Str(key.to_string()), msg)),
            );
        }
        if key.is_empty() && op != OP_EXISTS {
            errs.push(FieldError::invalid(
                at("operator"),
                BadValue::Str(op.to_string()),
                MSG_EMPTY_KEY_NEEDS_EXISTS,
            ));
        }
        if t.toleration_seconds.is_some() && effect != NO_EXECUTE {
            errs.push(FieldError::invalid(
                at("effect"),
                BadValue::Str(effect.to_string()),
                MSG_SECONDS_NEED_NO_EXECUTE,
            ));
        }
        match op {
            "" | OP_EQUAL => {
                let msgs = is_valid_label_value(value);
                if !msgs.is_empty() {
                    errs.push(FieldError::invalid(
                        at("operator"),
                        BadValue::Str(value.to_string()),
                        msgs.join(";"),
                    ));
                }
            }
            OP_EXISTS => {
                if !value.is_empty() {
                    errs.push(FieldError::invalid(
                        at("operator"),
                        BadValue::Str(value.to_string()),
                        MSG_EXISTS_WITH_VALUE,
                    ));
                }
            }
            OP_LT | OP_GT => {
                if opts.allow_comparison_operators {
                    errs.extend(is_decimal_integer(value).into_iter().map(|msg| {
                        FieldError::invalid(at("value"), BadValue::Str(value.to_string()), msg)
                    }));
                } else {
                    errs.push(FieldError::not_supported(
                        at("operator"),
                        op,
                        &SUPPORTED_OPERATORS_WITH_COMPARISON,
                    ));
                }
            }
            _ => errs.push(FieldError::not_supported(
                at("operator"),
                op,
                &SUPPORTED_OPERATORS,
            )),
        }
        // (`validate_taint_effect` finds nothing wrong with a known effect.)
        if !effect.is_empty() && !EFFECTS.contains(&effect) {
            errs.extend(validate_taint_effect(effect, true, &at("effect")));
        }
    }
    errs
}

/// The toleration part of upstream `ValidatePodSpec` (v1.35): when the spec has tolerations,
/// [`validate_tolerations`] at `<spec_path>.tolerations` (`spec_path` is `spec` for a Pod,
/// `spec.template.spec` for a workload's template).
pub fn validate_pod_spec_tolerations(
    spec: &PodSpec,
    spec_path: &str,
    opts: &ValidationOptions,
) -> Vec<FieldError> {
    match spec.tolerations.as_deref() {
        Some(tols) if !tols.is_empty() => {
            validate_tolerations(tols, &format!("{spec_path}.tolerations"), opts)
        }
        _ => Vec::new(),
    }
}

/// Whether two tolerations are equal once `tolerationSeconds` is ignored, comparing as the
/// internal type does (an unset string and `""` are the same).
fn same_but_seconds(a: &Toleration, b: &Toleration) -> bool {
    s(&a.key) == s(&b.key)
        && s(&a.operator) == s(&b.operator)
        && s(&a.value) == s(&b.value)
        && s(&a.effect) == s(&b.effect)
}

/// The toleration rule of upstream `ValidatePodUpdate` (the first half of
/// `validateOnlyAddedTolerations`, v1.35), with `path` = `spec.tolerations`:
///
/// 1. Every old toleration must still be in the new list, equal in key, operator, value and
///    effect (only `tolerationSeconds` may change); order does not matter; new ones may be added.
/// 2. At the first old toleration that is missing, one `Forbidden` at `path` itself (no index),
///    and nothing more.
///
/// Upstream then validates the new list again; [`validate_only_added_tolerations`] does both.
pub fn validate_pod_toleration_update(
    old: &[Toleration],
    new: &[Toleration],
    path: &str,
) -> Vec<FieldError> {
    for o in old {
        if !new.iter().any(|n| same_but_seconds(o, n)) {
            return vec![FieldError::forbidden(path, MSG_TOLERATION_MODIFIED)];
        }
    }
    Vec::new()
}

/// Upstream `validateOnlyAddedTolerations` (v1.35) in full: the `Forbidden` of
/// [`validate_pod_toleration_update`] alone, or else [`validate_tolerations`] of the new list.
/// On an update `opts` should come from [`ValidationOptions::for_update`].
pub fn validate_only_added_tolerations(
    old: &[Toleration],
    new: &[Toleration],
    path: &str,
    opts: &ValidationOptions,
) -> Vec<FieldError> {
    let errs = validate_pod_toleration_update(old, new, path);
    if !errs.is_empty() {
        return errs;
    }
    validate_tolerations(new, path, opts)
}

/// Upstream `validateNodeTaints` (v1.35). For taint `i`, at `<path>[i]`, in this order:
///
/// 1. The key must be a qualified name (an empty key fails): one `Invalid` per message at `…key`.
/// 2. The value must be a label value (so `-200` is refused): the messages joined by `;`,
///    `Invalid` at `…value`.
/// 3. The effect is required and must be one of the three ([`validate_taint_effect`]).
/// 4. Taints are unique by (key, effect): a later repeat is `Duplicate value` at `<path>[i]`,
///    the taint rendered as JSON (see the module's decisions), detail
///    [`MSG_DUPLICATE_TAINT`]. The same key with different effects is fine.
///
/// `ValidateNode` passes `metadata.taints` as `path` (an upstream quirk: not `spec.taints`).
pub fn validate_node_taints(taints: &[Taint], path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut seen: HashSet<(&str, &str)> = HashSet::new();
    for (i, t) in taints.iter().enumerate() {
        let idx = format!("{path}[{i}]");
        errs.extend(validate_label_name(&t.key, &format!("{idx}.key")));
        let value = s(&t.value);
        let msgs = is_valid_label_value(value);
        if !msgs.is_empty() {
            errs.push(FieldError::invalid(
                format!("{idx}.value"),
                BadValue::Str(value.to_string()),
                msgs.join(";"),
            ));
        }
        errs.extend(validate_taint_effect(
            &t.effect,
            false,
            &format!("{idx}.effect"),
        ));
        if !seen.insert((t.effect.as_str(), t.key.as_str())) {
            let mut dup = FieldError::duplicate(&idx, BadValue::Json(taint_json(t)));
            dup.detail = MSG_DUPLICATE_TAINT.to_string();
            errs.push(dup);
        }
    }
    errs
}

/// The taint part of upstream `ValidateNode` / `ValidateNodeUpdate` (v1.35): when the node has
/// taints, [`validate_node_taints`] at `metadata.taints`. (The legacy taints annotation is not
/// checked.)
pub fn validate_node(node: &Node) -> Vec<FieldError> {
    match node.spec.as_ref().and_then(|s| s.taints.as_deref()) {
        Some(taints) if !taints.is_empty() => validate_node_taints(taints, "metadata.taints"),
        _ => Vec::new(),
    }
}

/// Non-ASCII ranges Go's `unicode.IsPrint` refuses besides C1 controls: the separators other
/// than U+0020 (Zs, Zl, Zp), format characters (Cf), private use (Co) and U+FDD0..U+FDEF.
#[rustfmt::skip]
const GO_NOT_PRINT: &[(u32, u32)] = &[
    (0x00A0, 0x00A0), (0x00AD, 0x00AD), (0x0600, 0x0605), (0x061C, 0x061C), (0x06DD, 0x06DD),
    (0x070F, 0x070F), (0x0890, 0x0891), (0x08E2, 0x08E2), (0x1680, 0x1680), (0x180E, 0x180E),
    (0x2000, 0x200F), (0x2028, 0x202F), (0x205F, 0x2064), (0x2066, 0x206F), (0x3000, 0x3000),
    (0xE000, 0xF8FF), (0xFDD0, 0xFDEF), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD),
    (0x110CD, 0x110CD), (0x13430, 0x1343F), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0001, 0xE0001), (0xE0020, 0xE007F), (0xF0000, 0x10FFFF),
];

/// Go's `unicode.IsPrint` for a non-ASCII rune, without Unicode tables: false for C1
/// controls, format characters (Cf), separators other than U+0020 (Zs, Zl, Zp), private use
/// (Co) and noncharacters. Unassigned code points, which Go also refuses, count as printable
/// here: the one known difference.
fn go_is_print(c: char) -> bool {
    let u = c as u32;
    if u < 0x80 {
        return (0x20..0x7f).contains(&u);
    }
    if c.is_control() {
        return false;
    }
    if (u & 0xFFFE) == 0xFFFE {
        return false;
    }
    !GO_NOT_PRINT.iter().any(|&(lo, hi)| (lo..=hi).contains(&u))
}

/// kubectl's text for an object the API server refused as invalid (`cmdutil.CheckErr` on a 422
/// Status): `The <Kind> "<name>" is invalid: ` then the one error on the same line, or, for
/// several, a line break and one `* <error>` line each. Ends with a newline.
pub fn invalid_message(kind: &str, name: &str, errors: &[FieldError]) -> String {
    let prefix = format!("The {kind} {} is invalid: ", go_quote(name));
    match errors {
        [one] => format!("{prefix}{one}\n"),
        many => {
            let mut s = format!("{prefix}\n");
            for e in many {
                s.push_str(&format!("* {e}\n"));
            }
            s
        }
    }
}

/// Go's `strconv.Quote` (what `%q` prints): `"` and `\` backslashed; printable runes as they
/// are (`é` stays `é`); `\a \b \f \n \r \t \v`; other runes below U+0020 and DEL as `\xNN`;
/// other non-printable runes as `\uNNNN` or `\UNNNNNNNN` (lower-case hex).
pub fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        let u = c as u32;
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if go_is_print(c) => out.push(c),
            '\u{07}' => out.push_str("\\a"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{0b}' => out.push_str("\\v"),
            _ if u < 0x20 || u == 0x7f => {
                let _ = write!(out, "\\x{u:02x}");
            }
            _ if u < 0x10000 => {
                let _ = write!(out, "\\u{u:04x}");
            }
            _ => {
                let _ = write!(out, "\\U{u:08x}");
            }
        }
    }
    out.push('"');
    out
}

/// A string as Go's `json.Marshal` writes it: `"` and `\` backslashed; `\b \f \n \r \t`;
/// other control characters as `\u00NN`; `<`, `>`, `&`, U+2028 and U+2029 as `\uNNNN`
/// (HTML-safe escaping); everything else as is.
pub fn go_json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || matches!(c, '<' | '>' | '&' | '\u{2028}' | '\u{2029}') => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The Unix second of Go's zero `time.Time` (0001-01-01T00:00:00Z), which `metav1.Time`
/// marshals as `null`.
const GO_ZERO_TIME_SECONDS: i64 = -62_135_596_800;

/// `metav1.Time.MarshalJSON`: `null` for Go's zero time, else RFC 3339 in UTC, whole seconds.
fn time_json(t: &Time) -> String {
    let ts = t.0;
    if ts.as_second() == GO_ZERO_TIME_SECONDS && ts.subsec_nanosecond() == 0 {
        return "null".to_string();
    }
    let dt = Offset::UTC.to_datetime(ts);
    let year = i32::from(dt.year());
    let year = if year < 0 {
        format!("-{:04}", -year)
    } else {
        format!("{year:04}")
    };
    format!(
        "\"{year}-{:02}-{:02}T{:02}:{:02}:{:02}Z\"",
        dt.month(),
        dt.day(),
        dt.hour(),
        dt.minute(),
        dt.second()
    )
}

/// The internal `core.Taint` as v1.34+ `ErrorBody` prints it (Go's `json.Marshal`, field names
/// without JSON tags): `{"Key":"foo","Value":"bar","Effect":"NoSchedule","TimeAdded":null}`.
pub fn taint_json(t: &Taint) -> String {
    let time_added = t
        .time_added
        .as_ref()
        .map_or_else(|| "null".to_string(), time_json);
    format!(
        "{{\"Key\":{},\"Value\":{},\"Effect\":{},\"TimeAdded\":{}}}",
        go_json_string(&t.key),
        go_json_string(s(&t.value)),
        go_json_string(&t.effect),
        time_added
    )
}

/// The internal `core.Taint` as pre-1.34 `ErrorBody` printed it, Go's `%#v`:
/// `core.Taint{Key:"foo", Value:"bar", Effect:"NoSchedule", TimeAdded:(*v1.Time)(nil)}`.
/// Go printed a set `timeAdded` as a pointer address; this prints the pointee instead,
/// `&v1.Time{Time:time.Date(2024, time.January, 1, 0, 0, 0, 0, time.UTC)}`, which is stable.
pub fn taint_go_syntax(t: &Taint) -> String {
    #[rustfmt::skip]
    const MONTHS: [&str; 12] = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September",
        "October", "November", "December",
    ];
    let time_added = match &t.time_added {
        None => "(*v1.Time)(nil)".to_string(),
        Some(time) => {
            let dt = Offset::UTC.to_datetime(time.0);
            let month = MONTHS
                .get(usize::try_from(dt.month() - 1).unwrap_or_default())
                .copied()
                .unwrap_or_default();
            format!(
                "&v1.Time{{Time:time.Date({}, time.{month}, {}, {}, {}, {}, {}, time.UTC)}}",
                dt.year(),
                dt.day(),
                dt.hour(),
                dt.minute(),
                dt.second(),
                dt.subsec_nanosecond()
            )
        }
    };
    format!(
        "core.Taint{{Key:{}, Value:{}, Effect:{}, TimeAdded:{time_added}}}",
        go_quote(&t.key),
        go_quote(s(&t.value)),
        go_quote(&t.effect)
    )
}

pub mod meta;

#[cfg(test)]
mod tests;
