//! Feature gates that change taint/toleration semantics, parsed from kube's `--feature-gates` syntax.

use std::fmt;
use std::str::FromStr;

/// The name of the gate that enables the `Gt` and `Lt` toleration operators (KEP-5471, alpha in v1.35).
pub const TAINT_TOLERATION_COMPARISON_OPERATORS: &str = "TaintTolerationComparisonOperators";

/// The feature gates repel honours. `Default` is upstream v1.35's default: every alpha gate off.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FeatureGates {
    /// `TaintTolerationComparisonOperators`: `Gt`/`Lt` match and validate only when on.
    pub taint_toleration_comparison_operators: bool,
}

impl FeatureGates {
    /// Gates with `TaintTolerationComparisonOperators` on.
    pub fn with_comparison_operators() -> Self {
        FeatureGates {
            taint_toleration_comparison_operators: true,
        }
    }
}

/// Why a `--feature-gates` value could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FeatureGateError {
    /// A `key=value` pair lacked its `=`.
    #[error("missing bool value for {0}")]
    MissingValue(String),
    /// The value was not a Go `strconv.ParseBool` boolean.
    #[error(
        "invalid value of {name}={value}, err: strconv.ParseBool: parsing {value:?}: invalid syntax"
    )]
    InvalidBool {
        /// The gate's name.
        name: String,
        /// The value given.
        value: String,
    },
    /// The gate is not one repel knows.
    #[error("unrecognized feature gate: {0}")]
    Unknown(String),
}

/// Go's `strconv.ParseBool`, which kube's feature-gate flag uses.
fn parse_go_bool(s: &str) -> Option<bool> {
    match s {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

impl FromStr for FeatureGates {
    type Err = FeatureGateError;

    /// Parses `Name=bool[,Name=bool...]` as component-base's `featuregate.Set` does: pairs split
    /// on `,`, keys and values trimmed, empty pairs skipped, values per `strconv.ParseBool`,
    /// unknown gates refused with upstream's "unrecognized feature gate" message.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut gates = FeatureGates::default();
        for pair in s.split(',') {
            if pair.trim().is_empty() {
                continue;
            }
            let mut kv = pair.splitn(2, '=');
            let name = kv.next().unwrap_or_default().trim().to_string();
            let Some(value) = kv.next() else {
                return Err(FeatureGateError::MissingValue(name));
            };
            let value = value.trim();
            let Some(on) = parse_go_bool(value) else {
                return Err(FeatureGateError::InvalidBool {
                    name,
                    value: value.to_string(),
                });
            };
            match name.as_str() {
                TAINT_TOLERATION_COMPARISON_OPERATORS => {
                    gates.taint_toleration_comparison_operators = on
                }
                _ => return Err(FeatureGateError::Unknown(name)),
            }
        }
        Ok(gates)
    }
}

impl fmt::Display for FeatureGates {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{TAINT_TOLERATION_COMPARISON_OPERATORS}={}",
            self.taint_toleration_comparison_operators
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feature_gate_flag_parsing() {
        let cases: &[(&str, &str, Result<bool, &str>)] = &[
            (
                "the gate switched on",
                "TaintTolerationComparisonOperators=true",
                Ok(true),
            ),
            (
                "the gate switched off",
                "TaintTolerationComparisonOperators=false",
                Ok(false),
            ),
            ("an empty flag keeps the default, off", "", Ok(false)),
            (
                "Go's short booleans are accepted",
                "TaintTolerationComparisonOperators=T",
                Ok(true),
            ),
            (
                "spaces around the pair are trimmed",
                " TaintTolerationComparisonOperators = 1 ",
                Ok(true),
            ),
            (
                "a value that is not a boolean is refused",
                "TaintTolerationComparisonOperators=yes",
                Err(
                    "invalid value of TaintTolerationComparisonOperators=yes, err: strconv.ParseBool: parsing \"yes\": invalid syntax",
                ),
            ),
            (
                "an unknown gate is refused",
                "Foo=true",
                Err("unrecognized feature gate: Foo"),
            ),
            (
                "a pair without a value is refused",
                "TaintTolerationComparisonOperators",
                Err("missing bool value for TaintTolerationComparisonOperators"),
            ),
        ];
        for (name, input, want) in cases {
            let got = input
                .parse::<FeatureGates>()
                .map(|g| g.taint_toleration_comparison_operators)
                .map_err(|e| e.to_string());
            assert_eq!(got, want.map_err(str::to_string), "{name}");
        }
    }
}
