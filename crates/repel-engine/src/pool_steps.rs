//! The `az:` and `aws:` scenario steps: the seeds' own command lines for node pools,
//! read as azure-cli and the AWS CLI read them.
//!
//! - `az aks nodepool update --resource-group RG --cluster-name C --name POOL --node-taints
//!   "k=v:NoSchedule,…"` (`""` removes the pool's taints), and `az aks nodepool scale … --name
//!   POOL --node-count N`. Each taint is checked as azure-cli's `validate_taint` checks it
//!   (`Invalid node taint: S`).
//! - `aws eks update-nodegroup-config --cluster-name C --nodegroup-name NG --taints
//!   'addOrUpdateTaints=[{key=k,value=v,effect=NO_SCHEDULE}],removeTaints=[{key=k,effect=NO_SCHEDULE}]'`
//!   (the AWS CLI's shorthand, or the same as JSON) and `--scaling-config desiredSize=N`
//!   (`minSize`, `maxSize` read and not used).
//!
//! A leading `az` or `aws` may be written or left out. Flags take their value as the next
//! word or after `=`. What the controllers do with the commands is in
//! [`crate::controllers::node_pools`].

use k8s_openapi::api::core::v1::Taint;
use serde_json::Value;

use crate::kubectl_steps::tokenize;

/// A pool command of a step.
#[derive(Debug, Clone, PartialEq)]
pub enum PoolCommand {
    /// `az aks nodepool update|scale`.
    Aks {
        /// `update` or `scale`.
        verb: String,
        /// `--resource-group`.
        resource_group: String,
        /// `--cluster-name`.
        cluster: String,
        /// `--name`.
        pool: String,
        /// `--node-taints` (`Some(empty)`: remove them all).
        taints: Option<Vec<Taint>>,
        /// `--node-count`.
        count: Option<i64>,
    },
    /// `aws eks update-nodegroup-config`.
    Eks {
        /// `--cluster-name`.
        cluster: String,
        /// `--nodegroup-name`.
        nodegroup: String,
        /// `--taints addOrUpdateTaints`.
        add: Vec<Taint>,
        /// `--taints removeTaints`.
        remove: Vec<Taint>,
        /// `--scaling-config desiredSize`.
        desired: Option<i64>,
    },
}

/// Splits `--flag value` and `--flag=value` pairs; `Err` for a word that is not a flag or a
/// flag with no value.
fn flags(
    words: &[String],
    unknown: &dyn Fn(&str) -> String,
) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        if !w.starts_with('-') {
            return Err(unknown(w));
        }
        if let Some((f, v)) = w.split_once('=') {
            out.push((f.to_string(), v.to_string()));
            i += 1;
            continue;
        }
        match words.get(i + 1) {
            Some(v) if !v.starts_with("--") => {
                out.push((w.clone(), v.clone()));
                i += 2;
            }
            _ => {
                out.push((w.clone(), String::new()));
                i += 1;
            }
        }
    }
    Ok(out)
}

/// Reads an `az:` step.
pub fn parse_az(line: &str) -> Result<PoolCommand, String> {
    let mut words = tokenize(line).map_err(|e| e.to_string())?;
    if words.first().map(String::as_str) == Some("az") {
        words.remove(0);
    }
    let verb = match words.get(..3) {
        Some([a, b, v]) if a == "aks" && b == "nodepool" && (v == "update" || v == "scale") => {
            v.clone()
        }
        _ => {
            return Err(format!(
                "az {}: repel runs `az aks nodepool update` and `az aks nodepool scale`",
                words.join(" ")
            ));
        }
    };
    let prog = format!("az aks nodepool {verb}");
    let pairs = flags(&words[3..], &|w| {
        format!("{prog}: error: unrecognized arguments: {w}")
    })?;
    let (mut rg, mut cluster, mut pool, mut taints, mut count) = (None, None, None, None, None);
    for (f, v) in pairs {
        match f.as_str() {
            "--resource-group" | "-g" => rg = Some(v),
            "--cluster-name" => cluster = Some(v),
            "--name" | "-n" | "--nodepool-name" => pool = Some(v),
            "--node-taints" if verb == "update" => {
                let list = v
                    .split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(repel_core::pools::aks_taint)
                    .collect::<Vec<_>>();
                taints = Some(list);
            }
            "--node-count" | "-c" if verb == "scale" => {
                count = Some(v.parse::<i64>().ok().filter(|n| *n >= 0).ok_or_else(|| {
                    format!("{prog}: error: argument --node-count/-c: invalid int value: '{v}'")
                })?);
            }
            "--no-wait" | "--yes" | "-y" => {}
            other => return Err(format!("{prog}: error: unrecognized arguments: {other}")),
        }
    }
    let mut missing = Vec::new();
    if rg.is_none() {
        missing.push("--resource-group/-g");
    }
    if cluster.is_none() {
        missing.push("--cluster-name");
    }
    if pool.is_none() {
        missing.push("--name/-n");
    }
    if verb == "scale" && count.is_none() {
        missing.push("--node-count/-c");
    }
    if !missing.is_empty() {
        return Err(format!(
            "{prog}: error: the following arguments are required: {}",
            missing.join(", ")
        ));
    }
    if let Some(list) = &taints {
        for t in list {
            let probe = repel_core::pools::Pool {
                provider: "aks",
                taints: vec![t.clone()],
                ..Default::default()
            };
            if let Some(e) = repel_core::pools::aks_validate(&probe).into_iter().next() {
                return Err(e);
            }
        }
    }
    Ok(PoolCommand::Aks {
        verb,
        resource_group: rg.unwrap_or_default(),
        cluster: cluster.unwrap_or_default(),
        pool: pool.unwrap_or_default(),
        taints,
        count,
    })
}

/// Reads an `aws:` step.
pub fn parse_aws(line: &str) -> Result<PoolCommand, String> {
    let mut words = tokenize(line).map_err(|e| e.to_string())?;
    if words.first().map(String::as_str) == Some("aws") {
        words.remove(0);
    }
    match words.get(..2) {
        Some([a, b]) if a == "eks" && b == "update-nodegroup-config" => {}
        _ => {
            return Err(format!(
                "aws {}: repel runs `aws eks update-nodegroup-config`",
                words.join(" ")
            ));
        }
    }
    let pairs = flags(&words[2..], &|w| format!("Unknown options: {w}"))?;
    let (mut cluster, mut ng, mut add, mut remove, mut desired) =
        (None, None, Vec::new(), Vec::new(), None);
    for (f, v) in pairs {
        match f.as_str() {
            "--cluster-name" => cluster = Some(v),
            "--nodegroup-name" => ng = Some(v),
            "--taints" => {
                let parsed = structure(&v)
                    .map_err(|e| format!("Error parsing parameter '--taints': {e}"))?;
                for (field, into) in [
                    ("addOrUpdateTaints", &mut add),
                    ("removeTaints", &mut remove),
                ] {
                    *into = eks_taints(&parsed[field], field)?;
                }
                if let Value::Object(m) = &parsed
                    && let Some(k) = m
                        .keys()
                        .find(|k| *k != "addOrUpdateTaints" && *k != "removeTaints")
                {
                    return Err(format!(
                        "Parameter validation failed:\nUnknown parameter in taints: \"{k}\", must be one of: addOrUpdateTaints, removeTaints"
                    ));
                }
            }
            "--scaling-config" => {
                let parsed = structure(&v)
                    .map_err(|e| format!("Error parsing parameter '--scaling-config': {e}"))?;
                desired = match &parsed["desiredSize"] {
                    Value::Null => None,
                    n => Some(number(n).filter(|n| *n >= 0).ok_or_else(|| {
                        format!(
                            "Parameter validation failed:\nInvalid type for parameter scalingConfig.desiredSize, value: {n}, valid types: <class 'int'>"
                        )
                    })?),
                };
            }
            other => return Err(format!("Unknown options: {other}")),
        }
    }
    let mut missing = Vec::new();
    if cluster.is_none() {
        missing.push("--cluster-name");
    }
    if ng.is_none() {
        missing.push("--nodegroup-name");
    }
    if !missing.is_empty() {
        return Err(format!(
            "aws: error: the following arguments are required: {}",
            missing.join(", ")
        ));
    }
    Ok(PoolCommand::Eks {
        cluster: cluster.unwrap_or_default(),
        nodegroup: ng.unwrap_or_default(),
        add,
        remove,
        desired,
    })
}

/// A JSON number, or a string of digits (shorthand values are strings).
fn number(v: &Value) -> Option<i64> {
    v.as_i64()
        .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
}

/// The taints of `addOrUpdateTaints` or `removeTaints`, effects as the EKS API spells them.
fn eks_taints(v: &Value, field: &str) -> Result<Vec<Taint>, String> {
    let items = match v {
        Value::Null => return Ok(Vec::new()),
        Value::Array(a) => a,
        other => {
            return Err(format!(
                "Parameter validation failed:\nInvalid type for parameter taints.{field}, value: {other}, valid types: <class 'list'>, <class 'tuple'>"
            ));
        }
    };
    let mut out = Vec::new();
    for (i, t) in items.iter().enumerate() {
        let Some(key) = t["key"].as_str() else {
            return Err(format!(
                "Parameter validation failed:\nMissing required parameter in taints.{field}[{i}]: \"key\""
            ));
        };
        let effect = t["effect"].as_str().unwrap_or_default();
        out.push(Taint {
            key: key.to_string(),
            value: t["value"].as_str().map(str::to_string),
            effect: repel_core::pools::eks_effect(effect)
                .unwrap_or(effect)
                .to_string(),
            time_added: None,
        });
    }
    Ok(out)
}

/// A parameter's value: JSON when it starts with `{` or `[` and parses, else the AWS CLI's
/// shorthand (`a=1,b=[{k=v,…},…]`), whose scalars are strings.
pub fn structure(s: &str) -> Result<Value, String> {
    let t = s.trim();
    if (t.starts_with('{') || t.starts_with('['))
        && let Ok(v) = serde_json::from_str::<Value>(t)
    {
        return Ok(v);
    }
    let chars: Vec<char> = t.chars().collect();
    let mut p = Shorthand { s: &chars, i: 0 };
    let v = p.pairs(None)?;
    if p.i < chars.len() {
        return Err(p.error("unexpected character"));
    }
    Ok(v)
}

/// The AWS CLI's shorthand syntax, enough of it for the parameters above.
struct Shorthand<'a> {
    s: &'a [char],
    i: usize,
}

impl Shorthand<'_> {
    fn error(&self, what: &str) -> String {
        let at: String = self.s.iter().collect();
        format!("{what} at position {} in {at:?}", self.i)
    }

    fn peek(&self) -> Option<char> {
        self.s.get(self.i).copied()
    }

    /// `k=v,k=v…` up to `end` (or the end of input).
    fn pairs(&mut self, end: Option<char>) -> Result<Value, String> {
        let mut m = serde_json::Map::new();
        loop {
            let key: String = self.word(&['=', ',', '}', ']']);
            if key.is_empty() {
                return Err(self.error("expected a key"));
            }
            if self.peek() != Some('=') {
                return Err(self.error("expected '='"));
            }
            self.i += 1;
            let value = self.value()?;
            m.insert(key.trim().to_string(), value);
            match self.peek() {
                Some(',') => {
                    self.i += 1;
                    // `,` before the closing bracket of a struct ends it.
                    if self.peek() == end && end.is_some() {
                        break;
                    }
                }
                c if c == end => break,
                None => break,
                Some(_) => return Err(self.error("expected ','")),
            }
        }
        Ok(Value::Object(m))
    }

    fn word(&mut self, stops: &[char]) -> String {
        let mut w = String::new();
        while let Some(c) = self.peek() {
            if stops.contains(&c) {
                break;
            }
            w.push(c);
            self.i += 1;
        }
        w
    }

    fn value(&mut self) -> Result<Value, String> {
        match self.peek() {
            Some('[') => {
                self.i += 1;
                let mut items = Vec::new();
                loop {
                    match self.peek() {
                        Some(']') => {
                            self.i += 1;
                            break;
                        }
                        Some('{') => {
                            self.i += 1;
                            items.push(self.pairs(Some('}'))?);
                            if self.peek() != Some('}') {
                                return Err(self.error("expected '}'"));
                            }
                            self.i += 1;
                        }
                        Some(_) => {
                            items.push(Value::String(self.word(&[',', ']']).trim().to_string()));
                        }
                        None => return Err(self.error("expected ']'")),
                    }
                    if self.peek() == Some(',') {
                        self.i += 1;
                    }
                }
                Ok(Value::Array(items))
            }
            Some('{') => {
                self.i += 1;
                let v = self.pairs(Some('}'))?;
                if self.peek() != Some('}') {
                    return Err(self.error("expected '}'"));
                }
                self.i += 1;
                Ok(v)
            }
            _ => Ok(Value::String(
                self.word(&[',', '}', ']']).trim().to_string(),
            )),
        }
    }
}

#[cfg(test)]
mod tests;
