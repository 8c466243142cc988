//! A small re-implementation of the parts of spf13/pflag that kubectl's commands use: long and
//! shorthand flags interspersed with arguments, `--flag=value`, `--flag value`, `-n value`,
//! `-nvalue`, boolean flags with optional `=value`, and `--` ending the flags. Error messages are
//! pflag's.

use std::collections::BTreeMap;

/// Whether a flag takes a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FlagKind {
    /// `--flag` or `--flag=true|false` (Go `strconv.ParseBool`).
    Bool,
    /// `--flag value` or `--flag=value`.
    Value,
}

/// One flag a command accepts.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FlagSpec {
    /// The long name, without `--`.
    pub long: &'static str,
    /// The shorthand letter, if any.
    pub short: Option<char>,
    /// Bool or value.
    pub kind: FlagKind,
}

/// A flag that takes a value.
pub(crate) const fn value(long: &'static str, short: Option<char>) -> FlagSpec {
    FlagSpec {
        long,
        short,
        kind: FlagKind::Value,
    }
}

/// A boolean flag.
pub(crate) const fn boolean(long: &'static str) -> FlagSpec {
    FlagSpec {
        long,
        short: None,
        kind: FlagKind::Bool,
    }
}

/// kubectl's global `-n/--namespace`, accepted by every command.
pub(crate) const NAMESPACE: FlagSpec = value("namespace", Some('n'));

/// Arguments and flag values after parsing.
#[derive(Debug, Clone, Default)]
pub(crate) struct Parsed {
    /// Positional arguments, in order.
    pub args: Vec<String>,
    /// Flag values by long name, every occurrence in order; bools hold `"true"`/`"false"`.
    values: BTreeMap<&'static str, Vec<String>>,
}

impl Parsed {
    /// A flag's raw value, when given (the last occurrence wins, as pflag's scalar flags).
    pub fn get(&self, long: &str) -> Option<&str> {
        self.values
            .get(long)
            .and_then(|v| v.last())
            .map(String::as_str)
    }

    /// Every value a repeatable flag was given, in order.
    pub fn all(&self, long: &str) -> &[String] {
        self.values.get(long).map(Vec::as_slice).unwrap_or_default()
    }

    /// Whether a boolean flag is on.
    pub fn on(&self, long: &str) -> bool {
        self.get(long) == Some("true")
    }

    /// Whether the flag was given at all (cobra's `Changed`).
    pub fn changed(&self, long: &str) -> bool {
        self.values.contains_key(long)
    }
}

/// Go's `strconv.ParseBool`.
pub(crate) fn parse_go_bool(s: &str) -> Option<bool> {
    match s {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

fn flag_name(spec: &FlagSpec) -> String {
    match spec.short {
        Some(c) => format!("-{c}, --{}", spec.long),
        None => format!("--{}", spec.long),
    }
}

fn set(out: &mut Parsed, spec: &FlagSpec, raw: Option<String>) -> Result<(), String> {
    let v = match (spec.kind, raw) {
        (FlagKind::Bool, None) => "true".to_string(),
        (FlagKind::Bool, Some(v)) => match parse_go_bool(&v) {
            Some(b) => b.to_string(),
            None => {
                return Err(format!(
                    "invalid argument {v:?} for {:?} flag: strconv.ParseBool: parsing {v:?}: invalid syntax",
                    flag_name(spec)
                ));
            }
        },
        (FlagKind::Value, Some(v)) => v,
        (FlagKind::Value, None) => return Err(format!("flag needs an argument: --{}", spec.long)),
    };
    out.values.entry(spec.long).or_default().push(v);
    Ok(())
}

/// Parses `tokens` against `specs` with pflag's rules and messages:
///
/// 1. `--` ends the flags; every later token is an argument. A lone `-` is an argument.
/// 2. `--name=value`; `--name` (a bool is set true; a value flag takes the next token, or fails
///    with "flag needs an argument: --name").
/// 3. `-x` shorthands: `-n value`, `-nvalue`, `-n=value`; bool shorthands may be grouped.
/// 4. Unknown: "unknown flag: --name", "unknown shorthand flag: 'x' in -xyz".
/// 5. A bool with a bad value: `invalid argument "v" for "--name" flag: strconv.ParseBool: …`.
pub(crate) fn parse_flags(tokens: &[String], specs: &[FlagSpec]) -> Result<Parsed, String> {
    let mut out = Parsed::default();
    let mut i = 0;
    while i < tokens.len() {
        let tok = &tokens[i];
        i += 1;
        if tok == "--" {
            out.args.extend(tokens[i..].iter().cloned());
            break;
        }
        if let Some(long) = tok.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (long, None),
            };
            let Some(spec) = specs.iter().find(|s| s.long == name) else {
                return Err(format!("unknown flag: --{name}"));
            };
            let raw = match (spec.kind, inline) {
                (FlagKind::Value, None) => match tokens.get(i) {
                    Some(next) => {
                        i += 1;
                        Some(next.clone())
                    }
                    None => return Err(format!("flag needs an argument: --{name}")),
                },
                (_, inline) => inline,
            };
            set(&mut out, spec, raw)?;
            continue;
        }
        if let Some(shorts) = tok.strip_prefix('-').filter(|s| !s.is_empty()) {
            let chars: Vec<char> = shorts.chars().collect();
            let mut j = 0;
            while j < chars.len() {
                let c = chars[j];
                let Some(spec) = specs.iter().find(|s| s.short == Some(c)) else {
                    return Err(format!("unknown shorthand flag: '{c}' in -{shorts}"));
                };
                let rest: String = chars[j + 1..].iter().collect();
                match spec.kind {
                    FlagKind::Bool => {
                        let raw = rest.strip_prefix('=').map(str::to_string);
                        let done = raw.is_some();
                        set(&mut out, spec, raw)?;
                        if done {
                            break;
                        }
                        j += 1;
                    }
                    FlagKind::Value => {
                        let raw = if let Some(v) = rest.strip_prefix('=') {
                            v.to_string()
                        } else if !rest.is_empty() {
                            rest
                        } else if let Some(next) = tokens.get(i) {
                            i += 1;
                            next.clone()
                        } else {
                            return Err(format!("flag needs an argument: '{c}' in -{shorts}"));
                        };
                        set(&mut out, spec, Some(raw))?;
                        break;
                    }
                }
            }
            continue;
        }
        out.args.push(tok.clone());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    #[allow(clippy::type_complexity)]
    fn pflag_rules() {
        let specs = [NAMESPACE, boolean("force"), value("timeout", None)];
        #[rustfmt::skip]
        let cases: &[(&str, &str, Result<(&[&str], &[(&str, &str)]), &str>)] = &[
            ("flags may follow arguments", "a --force b", Ok((&["a", "b"], &[("force", "true")]))),
            ("a value flag takes the next token", "--timeout 5s a", Ok((&["a"], &[("timeout", "5s")]))),
            ("a value flag takes an inline value", "--timeout=5s", Ok((&[], &[("timeout", "5s")]))),
            ("a shorthand takes the next token", "-n kube-system x", Ok((&["x"], &[("namespace", "kube-system")]))),
            ("a shorthand takes an attached value", "-nkube-system", Ok((&[], &[("namespace", "kube-system")]))),
            ("a bool takes an explicit false", "--force=false", Ok((&[], &[("force", "false")]))),
            ("a double dash ends the flags", "-- --force", Ok((&["--force"], &[]))),
            ("an unknown long flag is refused", "--forse", Err("unknown flag: --forse")),
            ("an unknown shorthand is refused", "-x", Err("unknown shorthand flag: 'x' in -x")),
            ("a value flag at the end needs its value", "--timeout", Err("flag needs an argument: --timeout")),
            ("a bool with a bad value is refused", "--force=maybe",
             Err("invalid argument \"maybe\" for \"--force\" flag: strconv.ParseBool: parsing \"maybe\": invalid syntax")),
        ];
        for (name, input, want) in cases {
            let got = parse_flags(&toks(input), &specs);
            match (got, want) {
                (Ok(p), Ok((args, flags))) => {
                    assert_eq!(p.args, *args, "{name}");
                    for (k, v) in *flags {
                        assert_eq!(p.get(k), Some(*v), "{name}");
                    }
                }
                (Err(e), Err(w)) => assert_eq!(e, *w, "{name}"),
                (got, _) => panic!("{name}: got {got:?}"),
            }
        }
    }
}
