//! Label selectors as `kubectl -l/--selector` takes them: upstream `k8s.io/apimachinery/pkg/labels`
//! (`selector.go`, v1.35), with upstream's parse and validation messages byte for byte.
//!
//! [`LabelSelector`] parses through [`FromStr`] (upstream `labels.Parse`), prints through
//! [`Display`](fmt::Display) (upstream `Selector.String`), and matches a label map
//! ([`LabelSelector::matches`]). [`Requirement`] is one `key op values` clause; [`label_selector_from_api`]
//! converts a `metav1.LabelSelector` as `metav1.LabelSelectorAsSelector` does.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::str::FromStr;

use k8s_openapi::apimachinery::pkg::apis::meta::v1 as metav1;

mod field;
mod parse;

pub use field::{FieldErrorKind, SelectorFieldError};
pub(crate) use field::{
    FieldPath, aggregate_message, go_quote, invalid_list, invalid_str, not_supported,
};
use parse::Parser;

use crate::names::{is_qualified_name, is_valid_label_value, regex_error};

/// Upstream `selection.In`.
pub const SELECTION_IN: &str = "in";
/// Upstream `selection.NotIn`.
pub const SELECTION_NOT_IN: &str = "notin";
/// Upstream `selection.Equals`.
pub const SELECTION_EQUALS: &str = "=";
/// Upstream `selection.DoubleEquals`.
pub const SELECTION_DOUBLE_EQUALS: &str = "==";
/// Upstream `selection.NotEquals`.
pub const SELECTION_NOT_EQUALS: &str = "!=";
/// Upstream `selection.Exists`.
pub const SELECTION_EXISTS: &str = "exists";
/// Upstream `selection.DoesNotExist`.
pub const SELECTION_DOES_NOT_EXIST: &str = "!";
/// Upstream `selection.GreaterThan`.
pub const SELECTION_GREATER_THAN: &str = "gt";
/// Upstream `selection.LessThan`.
pub const SELECTION_LESS_THAN: &str = "lt";

/// The prefix `Parse` puts before an error raised inside one requirement.
pub const UNABLE_TO_PARSE_REQUIREMENT: &str = "unable to parse requirement: ";
/// `NewRequirement` detail: `in`/`notin` without values.
pub const ERR_IN_NOTIN_EMPTY: &str = "for 'in', 'notin' operators, values set can't be empty";
/// `NewRequirement` detail: `=`, `==`, `!=` without exactly one value.
pub const ERR_EXACT_MATCH_ONE_VALUE: &str = "exact-match compatibility requires one single value";
/// `NewRequirement` detail: `exists`/`!` with values.
pub const ERR_EXISTS_WITH_VALUES: &str = "values set must be empty for exists and does not exist";
/// `NewRequirement` detail: `gt`/`lt` without exactly one value.
pub const ERR_GT_LT_ONE_VALUE: &str = "for 'Gt', 'Lt' operators, exactly one value is required";
/// `NewRequirement` detail: a `gt`/`lt` value that `strconv.ParseInt` rejects.
pub const ERR_GT_LT_INTEGER: &str = "for 'Gt', 'Lt' operators, the value must be an integer";
/// Upstream `binaryOperators`, joined as `parseOperator`'s error lists them.
pub const BINARY_OPERATORS_LIST: &str = "in, notin, =, ==, !=, gt, lt";

const LABEL_KEY_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_KEY_ERR_MSG: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/// A label selector operator (upstream `selection.Operator`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operator {
    /// `key in (a,b)`: the label exists and its value is listed.
    In,
    /// `key notin (a,b)`: the label is absent or its value is not listed.
    NotIn,
    /// `key=a`.
    Equals,
    /// `key==a`.
    DoubleEquals,
    /// `key!=a`: the label is absent or differs.
    NotEquals,
    /// `key`: the label exists.
    Exists,
    /// `!key`: the label does not exist.
    DoesNotExist,
    /// `key>5`: the label exists and, read as an int64, is greater.
    GreaterThan,
    /// `key<5`: the label exists and, read as an int64, is smaller.
    LessThan,
}

impl Operator {
    /// Upstream's string for the operator (`selection.Operator` value).
    pub fn as_str(self) -> &'static str {
        match self {
            Operator::In => SELECTION_IN,
            Operator::NotIn => SELECTION_NOT_IN,
            Operator::Equals => SELECTION_EQUALS,
            Operator::DoubleEquals => SELECTION_DOUBLE_EQUALS,
            Operator::NotEquals => SELECTION_NOT_EQUALS,
            Operator::Exists => SELECTION_EXISTS,
            Operator::DoesNotExist => SELECTION_DOES_NOT_EXIST,
            Operator::GreaterThan => SELECTION_GREATER_THAN,
            Operator::LessThan => SELECTION_LESS_THAN,
        }
    }
}

/// Why a label selector could not be parsed or built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LabelSelectorError {
    /// The selector string breaks the grammar (e.g. "found ',', expected: identifier after ','").
    #[error("{0}")]
    Syntax(String),
    /// One requirement of a selector string failed; upstream prefixes "unable to parse requirement: ".
    #[error("unable to parse requirement: {0}")]
    Requirement(Box<LabelSelectorError>),
    /// Key, value or operator validation failed (`NewRequirement`), shown as upstream's aggregate.
    #[error("{}", aggregate_message(.0))]
    Field(Vec<SelectorFieldError>),
    /// A `metav1.LabelSelector` expression operator other than In, NotIn, Exists, DoesNotExist.
    #[error("{} is not a valid label selector operator", go_quote(.0))]
    UnknownOperator(String),
}

/// Upstream `content.IsLabelKey` (v1.35): the label-key rules of [`is_qualified_name`], except
/// that a key with two or more `/` is reported as "a valid label key ...".
pub fn is_label_key(value: &str) -> Vec<String> {
    if value.matches('/').count() >= 2 {
        return vec![format!(
            "a valid label key {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
            regex_error(
                LABEL_KEY_ERR_MSG,
                LABEL_KEY_FMT,
                &["MyName", "my.name", "123-abc"]
            )
        )];
    }
    is_qualified_name(value)
}

/// Go's `strconv.ParseInt(s, 10, 64)`: optional sign, ASCII digits, leading zeros allowed.
pub fn parse_go_int64(s: &str) -> Option<i64> {
    s.parse::<i64>().ok()
}

/// One `key op values` clause of a selector (upstream `labels.Requirement`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Requirement {
    key: String,
    operator: Operator,
    values: Vec<String>,
}

impl Requirement {
    /// Upstream `labels.NewRequirement` (apimachinery v1.35), without a field path. The rules,
    /// every violation reported:
    ///
    /// 1. The key must be a valid label key (`content.IsLabelKey`).
    /// 2. `in`/`notin` need at least one value.
    /// 3. `=`, `==`, `!=` need exactly one value.
    /// 4. `exists`/`!` take no values.
    /// 5. `gt`/`lt` need exactly one value, and every value must parse as a Go int64.
    /// 6. Every value must be a valid label value (the empty string is valid).
    pub fn new(
        key: &str,
        operator: Operator,
        values: &[String],
    ) -> Result<Self, LabelSelectorError> {
        new_requirement(key, operator, Some(values), &FieldPath::default())
            .map_err(LabelSelectorError::Field)
    }

    /// The label key.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The operator.
    pub fn operator(&self) -> Operator {
        self.operator
    }

    /// The values, in the order given (a parsed selector's are sorted and unique).
    pub fn values(&self) -> &[String] {
        &self.values
    }

    /// Upstream `Requirement.Matches`:
    ///
    /// 1. `in`, `=`, `==`: the key exists and its value is listed.
    /// 2. `notin`, `!=`: the key is absent, or its value is not listed.
    /// 3. `exists` / `!`: the key is present / absent.
    /// 4. `gt` / `lt`: the key exists, its value and the single requirement value both parse as
    ///    Go int64, and label > value / label < value; otherwise no match.
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        let has = |v: &str| self.values.iter().any(|x| x == v);
        match self.operator {
            Operator::In | Operator::Equals | Operator::DoubleEquals => {
                labels.get(&self.key).is_some_and(|v| has(v))
            }
            Operator::NotIn | Operator::NotEquals => labels.get(&self.key).is_none_or(|v| !has(v)),
            Operator::Exists => labels.contains_key(&self.key),
            Operator::DoesNotExist => !labels.contains_key(&self.key),
            Operator::GreaterThan | Operator::LessThan => {
                let Some(have) = labels.get(&self.key).and_then(|v| parse_go_int64(v)) else {
                    return false;
                };
                let [want] = self.values.as_slice() else {
                    return false;
                };
                let Some(want) = parse_go_int64(want) else {
                    return false;
                };
                if self.operator == Operator::GreaterThan {
                    have > want
                } else {
                    have < want
                }
            }
        }
    }
}

/// Upstream `Requirement.String`: `!key`, `key`, `key=v`, `key in (a,b)` (values sorted when
/// there are several).
impl fmt::Display for Requirement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.operator == Operator::DoesNotExist {
            f.write_str("!")?;
        }
        f.write_str(&self.key)?;
        let op = match self.operator {
            Operator::Exists | Operator::DoesNotExist => return Ok(()),
            Operator::In => " in ",
            Operator::NotIn => " notin ",
            Operator::GreaterThan => ">",
            Operator::LessThan => "<",
            other => other.as_str(),
        };
        let set = matches!(self.operator, Operator::In | Operator::NotIn);
        f.write_str(op)?;
        if set {
            f.write_str("(")?;
        }
        if let [only] = self.values.as_slice() {
            f.write_str(only)?;
        } else {
            let mut sorted = self.values.clone();
            sorted.sort();
            f.write_str(&sorted.join(","))?;
        }
        if set {
            f.write_str(")")?;
        }
        Ok(())
    }
}

/// `NewRequirement` with a field path; `values` is `None` for a Go nil slice (renders `null`).
pub(crate) fn new_requirement(
    key: &str,
    operator: Operator,
    values: Option<&[String]>,
    path: &FieldPath,
) -> Result<Requirement, Vec<SelectorFieldError>> {
    let vals = values.unwrap_or_default();
    let mut errs = Vec::new();
    let key_errs = is_label_key(key);
    if !key_errs.is_empty() {
        errs.push(invalid_str(&path.child("key"), key, &key_errs.join("; ")));
    }
    let value_path = path.child("values");
    match operator {
        Operator::In | Operator::NotIn if vals.is_empty() => {
            errs.push(invalid_list(&value_path, values, ERR_IN_NOTIN_EMPTY));
        }
        Operator::Equals | Operator::DoubleEquals | Operator::NotEquals if vals.len() != 1 => {
            errs.push(invalid_list(&value_path, values, ERR_EXACT_MATCH_ONE_VALUE));
        }
        Operator::Exists | Operator::DoesNotExist if !vals.is_empty() => {
            errs.push(invalid_list(&value_path, values, ERR_EXISTS_WITH_VALUES));
        }
        Operator::GreaterThan | Operator::LessThan => {
            if vals.len() != 1 {
                errs.push(invalid_list(&value_path, values, ERR_GT_LT_ONE_VALUE));
            }
            for (i, v) in vals.iter().enumerate() {
                if parse_go_int64(v).is_none() {
                    errs.push(invalid_str(&value_path.index(i), v, ERR_GT_LT_INTEGER));
                }
            }
        }
        _ => {}
    }
    for (i, v) in vals.iter().enumerate() {
        let msgs = is_valid_label_value(v);
        if !msgs.is_empty() {
            errs.push(invalid_str(
                &value_path.index(i).key(key),
                v,
                &msgs.join("; "),
            ));
        }
    }
    // `ErrorList.ToAggregate` drops repeated messages.
    let mut seen = BTreeSet::new();
    errs.retain(|e| seen.insert(e.to_string()));
    if errs.is_empty() {
        Ok(Requirement {
            key: key.to_string(),
            operator,
            values: vals.to_vec(),
        })
    } else {
        Err(errs)
    }
}

/// A parsed label selector: requirements ANDed, sorted by key (upstream `internalSelector`), or
/// upstream's `labels.Nothing()`, which matches nothing.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct LabelSelector {
    requirements: Vec<Requirement>,
    nothing: bool,
}

impl LabelSelector {
    /// Upstream `labels.Everything()`: no requirements, matches every label set.
    pub fn everything() -> Self {
        Self::default()
    }

    /// Upstream `labels.Nothing()`: matches no label set; prints as the empty string.
    pub fn nothing() -> Self {
        LabelSelector {
            requirements: Vec::new(),
            nothing: true,
        }
    }

    /// Upstream `labels.SelectorFromSet` (v1.35): one unvalidated `key=value` per entry; an
    /// empty map is [`LabelSelector::everything`].
    pub fn from_set(set: &BTreeMap<String, String>) -> Self {
        let requirements = set
            .iter()
            .map(|(k, v)| Requirement {
                key: k.clone(),
                operator: Operator::Equals,
                values: vec![v.clone()],
            })
            .collect();
        LabelSelector {
            requirements,
            nothing: false,
        }
    }

    /// A selector of the given requirements (upstream `NewSelector().Add(...)`), sorted by key.
    pub fn from_requirements(mut requirements: Vec<Requirement>) -> Self {
        requirements.sort_by(|a, b| a.key.cmp(&b.key));
        LabelSelector {
            requirements,
            nothing: false,
        }
    }

    /// Upstream `Selector.Add`: a copy with more requirements, re-sorted by key. Adding to
    /// `Nothing` leaves it `Nothing`, as upstream.
    pub fn add(&self, more: impl IntoIterator<Item = Requirement>) -> Self {
        if self.nothing {
            return self.clone();
        }
        let mut all = self.requirements.clone();
        all.extend(more);
        Self::from_requirements(all)
    }

    /// The requirements, sorted by key.
    pub fn requirements(&self) -> &[Requirement] {
        &self.requirements
    }

    /// Upstream `Selector.Empty`: true when the selector does not restrict anything
    /// (`Nothing` is not empty).
    pub fn is_empty(&self) -> bool {
        !self.nothing && self.requirements.is_empty()
    }

    /// Whether this is upstream's `labels.Nothing()`.
    pub fn is_nothing(&self) -> bool {
        self.nothing
    }

    /// Upstream `Selector.Matches`: every requirement matches (`Nothing` never matches).
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        !self.nothing && self.requirements.iter().all(|r| r.matches(labels))
    }

    /// Upstream `RequiresExactMatch`: the single value the first requirement on `label` demands
    /// (`=`, `==`, or `in` with one value), if any.
    pub fn requires_exact_match(&self, label: &str) -> Option<&str> {
        let r = self.requirements.iter().find(|r| r.key == label)?;
        match (r.operator, r.values.as_slice()) {
            (Operator::Equals | Operator::DoubleEquals | Operator::In, [only]) => Some(only),
            _ => None,
        }
    }
}

/// Upstream `Selector.String`: the requirements joined by `,` (no spaces).
impl fmt::Display for LabelSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, r) in self.requirements.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{r}")?;
        }
        Ok(())
    }
}

/// Upstream `labels.Parse` (apimachinery v1.35). The grammar and rules:
///
/// 1. Requirements are separated by `,` and ANDed; the empty string selects everything.
/// 2. A requirement is `key` (exists), `!key` (does not exist), `key=v`, `key==v`, `key!=v`,
///    `key in (a,b)`, `key notin (a,b)`, `key>n`, `key<n`.
/// 3. Whitespace (space, tab, CR, LF) separates tokens and is otherwise ignored; a NUL byte
///    ends the input as in Go's lexer.
/// 4. `in`/`notin` are keywords only in operator position; as keys or values they are names.
/// 5. An exact value may be empty (`x=`); `()` and empty list items mean the empty value.
/// 6. Values of a set are sorted and de-duplicated; requirements are sorted by key.
/// 7. Keys and values are validated as `NewRequirement` does; errors inside a requirement are
///    prefixed "unable to parse requirement: ".
impl FromStr for LabelSelector {
    type Err = LabelSelectorError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut parser = Parser::new(s);
        let requirements = parser.parse()?;
        Ok(LabelSelector::from_requirements(requirements))
    }
}

/// Upstream `metav1.LabelSelectorAsSelector` (apimachinery v1.35):
///
/// 1. No `matchLabels` and no `matchExpressions` select everything. (A nil selector selects
///    nothing: callers holding `None` use [`LabelSelector::nothing`].)
/// 2. Each `matchLabels` entry is `key=value`, validated by `NewRequirement` (in key order here;
///    Go's map order is random when several entries are invalid).
/// 3. Each expression maps `In`, `NotIn`, `Exists`, `DoesNotExist`; any other operator fails with
///    "\"<op>\" is not a valid label selector operator".
/// 4. The first failing requirement's errors are returned.
pub fn label_selector_from_api(
    sel: &metav1::LabelSelector,
) -> Result<LabelSelector, LabelSelectorError> {
    let labels = sel.match_labels.as_ref().filter(|m| !m.is_empty());
    let exprs = sel.match_expressions.as_deref().unwrap_or_default();
    if labels.is_none() && exprs.is_empty() {
        return Ok(LabelSelector::everything());
    }
    let mut requirements = Vec::new();
    for (k, v) in labels.into_iter().flatten() {
        let r = new_requirement(
            k,
            Operator::Equals,
            Some(std::slice::from_ref(v)),
            &FieldPath::default(),
        )
        .map_err(LabelSelectorError::Field)?;
        requirements.push(r);
    }
    for expr in exprs {
        let op = match expr.operator.as_str() {
            "In" => Operator::In,
            "NotIn" => Operator::NotIn,
            "Exists" => Operator::Exists,
            "DoesNotExist" => Operator::DoesNotExist,
            other => return Err(LabelSelectorError::UnknownOperator(other.to_string())),
        };
        // `append([]string(nil), expr.Values...)`: no values is a nil slice.
        let values = expr.values.as_deref().filter(|v| !v.is_empty());
        let r = new_requirement(&expr.key, op, values, &FieldPath::default())
            .map_err(LabelSelectorError::Field)?;
        requirements.push(r);
    }
    Ok(LabelSelector::from_requirements(requirements))
}

#[cfg(test)]
mod tests;
