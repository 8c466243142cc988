//! CEL as kube-apiserver's admission plugins compile and evaluate it, through the `cel` crate
//! (cel-rust): the environment (the standard library, macros, and the strings extension), the
//! variables a policy's expressions see, JSON objects as CEL values, and upstream's error texts
//! (`plugin/cel/compile.go` and `activation.go` in k8s.io/apiserver v1.35).
//!
//! cel-rust parses but does not type-check. So a compile here catches syntax errors and
//! references to undeclared variables (what upstream's compile with `DynType` variables
//! catches), not calls to unknown functions or type mismatches, which surface when the
//! expression runs.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

use cel::common::ast::{EntryExpr, Expr, IdedExpr};
use cel::{Context, Env, ExecutionError, Program};
use serde_json::Value;

/// The variables every admission expression may name (`plugin/cel` `ObjectVarName` …), and
/// `authorizer`, which upstream declares and repel does not provide (an expression using it
/// fails when it runs).
pub const VARIABLES: &[&str] = &[
    "object",
    "oldObject",
    "request",
    "params",
    "namespaceObject",
    "authorizer",
    "variables",
];

/// The type names an expression may use as values (`type(x) == string`).
const TYPE_NAMES: &[&str] = &[
    "bool",
    "bytes",
    "double",
    "dyn",
    "int",
    "list",
    "map",
    "null_type",
    "string",
    "type",
    "uint",
];

/// cel-go's two-variable comprehension macros (`ext.TwoVarComprehensions`).
const TWO_VARIABLE_MACROS: &[&str] = &[
    "all",
    "exists",
    "existsOne",
    "transformList",
    "transformMap",
    "transformMapEntry",
];

static ENV: LazyLock<Arc<Env>> = LazyLock::new(|| {
    let mut env = Env::stdlib();
    // Kubernetes' base environment includes cel-go's `ext.Strings()`; a failure to register
    // leaves the standard library only.
    let _ = env.add_extension(cel::extensions::strings);
    Arc::new(env)
});

/// A compiled expression.
#[derive(Clone)]
pub struct Compiled {
    /// The expression as written.
    pub source: String,
    program: Arc<Program>,
}

impl std::fmt::Debug for Compiled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compiled")
            .field("source", &self.source)
            .finish()
    }
}

/// cel-go's `Error.ToDisplayString` of one error at 1-based `line` and `column`:
/// `ERROR: <input>:L:C: MSG`, then the line and a caret under the column.
fn display_error(source: &str, line: isize, column: isize, msg: &str) -> String {
    let mut out = format!("ERROR: <input>:{line}:{column}: {msg}");
    let Some(snippet) = usize::try_from(line - 1)
        .ok()
        .and_then(|l| source.split('\n').nth(l))
    else {
        return out;
    };
    let snippet = snippet.replace('\t', " ");
    out.push_str("\n | ");
    out.push_str(&snippet);
    out.push_str("\n | ");
    let mut rest = snippet.chars();
    for _ in 0..(column - 1).max(0) {
        match rest.next() {
            Some(c) if c.len_utf8() > 1 => out.push('\u{FF0E}'),
            Some(_) => out.push('.'),
            None => break,
        }
    }
    out.push('^');
    out
}

/// The 1-based line and column of byte `offset` in `source`.
fn position(source: &str, offset: usize) -> (isize, isize) {
    let before = &source[..offset.min(source.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line as isize, col as isize)
}

/// Every identifier of `e` that names neither a declared variable, a type, nor a
/// comprehension's variable in scope: (expression id, name), in source order.
fn undeclared(
    e: &IdedExpr,
    declared: &[&str],
    scope: &mut Vec<String>,
    out: &mut Vec<(u64, String)>,
) {
    match &e.expr {
        Expr::Ident(name) => {
            if !declared.contains(&name.as_str())
                && !TYPE_NAMES.contains(&name.as_str())
                && !scope.iter().any(|s| s == name)
            {
                out.push((e.id, name.clone()));
            }
        }
        Expr::Call(c) => {
            if let Some(t) = &c.target {
                undeclared(t, declared, scope, out);
            }
            // A two-variable comprehension (`list.all(i, v, …)`, Kubernetes v1.33+), which
            // cel-rust leaves a call: its first two arguments are the variables it binds.
            let binds = c.target.is_some()
                && c.args.len() == 3
                && TWO_VARIABLE_MACROS.contains(&c.func_name.as_str());
            let depth = scope.len();
            for (i, a) in c.args.iter().enumerate() {
                match &a.expr {
                    Expr::Ident(v) if binds && i < 2 => scope.push(v.clone()),
                    _ => undeclared(a, declared, scope, out),
                }
            }
            scope.truncate(depth);
        }
        Expr::Select(s) => undeclared(&s.operand, declared, scope, out),
        Expr::List(l) => {
            for x in &l.elements {
                undeclared(x, declared, scope, out);
            }
        }
        Expr::Map(m) => {
            for entry in &m.entries {
                if let EntryExpr::MapEntry(me) = &entry.expr {
                    undeclared(&me.key, declared, scope, out);
                    undeclared(&me.value, declared, scope, out);
                }
            }
        }
        Expr::Struct(s) => {
            for entry in &s.entries {
                if let EntryExpr::StructField(f) = &entry.expr {
                    undeclared(&f.value, declared, scope, out);
                }
            }
        }
        Expr::Comprehension(c) => {
            undeclared(&c.iter_range, declared, scope, out);
            undeclared(&c.accu_init, declared, scope, out);
            let depth = scope.len();
            scope.push(c.accu_var.clone());
            scope.push(c.iter_var.clone());
            if let Some(v) = &c.iter_var2 {
                scope.push(v.clone());
            }
            undeclared(&c.loop_cond, declared, scope, out);
            undeclared(&c.loop_step, declared, scope, out);
            undeclared(&c.result, declared, scope, out);
            scope.truncate(depth);
        }
        Expr::Literal(_) | Expr::Unspecified => {}
    }
}

/// A result type an expression must have (`ExpressionAccessor.ReturnTypes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `bool`.
    Bool,
    /// `string`.
    String,
    /// `null_type`.
    Null,
    /// `int`.
    Int,
    /// `uint`.
    Uint,
    /// `double`.
    Double,
    /// `bytes`.
    Bytes,
}

impl Kind {
    /// cel-go's name of the type.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Bool => "bool",
            Kind::String => "string",
            Kind::Null => "null_type",
            Kind::Int => "int",
            Kind::Uint => "uint",
            Kind::Double => "double",
            Kind::Bytes => "bytes",
        }
    }
}

/// The type of `e` when its outermost literal or operator settles it (a comparison, a
/// logical operator, `has`, `in` are `bool`); `None` when only a type checker could tell.
fn evident_kind(e: &IdedExpr) -> Option<Kind> {
    use cel::common::ast::LiteralValue as L;
    match &e.expr {
        Expr::Literal(l) => Some(match l {
            L::Boolean(_) => Kind::Bool,
            L::Bytes(_) => Kind::Bytes,
            L::Double(_) => Kind::Double,
            L::Int(_) => Kind::Int,
            L::Null => Kind::Null,
            L::String(_) => Kind::String,
            L::UInt(_) => Kind::Uint,
        }),
        Expr::Select(s) if s.test => Some(Kind::Bool),
        Expr::Call(c) => matches!(
            c.func_name.as_str(),
            "_==_" | "_!=_" | "_<_" | "_<=_" | "_>_" | "_>=_" | "_&&_" | "_||_" | "!_" | "@in"
        )
        .then_some(Kind::Bool),
        _ => None,
    }
}

/// Upstream's check of an expression before a policy is stored (`CompileCELExpression` with
/// `declared` variables and the `want` result types, none meaning any): `Err` is the detail of
/// the field error.
pub fn check(source: &str, declared: &[&str], want: &[Kind]) -> Result<(), String> {
    let compiled = compile(source, declared)?;
    if want.is_empty() {
        return Ok(());
    }
    match evident_kind(compiled.program.expression()) {
        Some(k) if !want.contains(&k) => Err(match want {
            [one] => format!("must evaluate to {}", one.name()),
            many => {
                let names: Vec<&str> = many.iter().map(|k| k.name()).collect();
                format!("must evaluate to one of [{}]", names.join(" "))
            }
        }),
        _ => Ok(()),
    }
}

/// Compiles `source` as upstream's `CompileCELExpression` does, minus type checking: `Err` is
/// upstream's `compilation failed: ERROR: <input>:L:C: …` text (syntax errors, and
/// `undeclared reference to 'x' (in container '')` for an identifier that is neither one of
/// `declared`, a type name, nor a comprehension's variable).
pub fn compile(source: &str, declared: &[&str]) -> Result<Compiled, String> {
    let program = match ENV.compile(source) {
        Ok(p) => p,
        Err(errs) => {
            let text: Vec<String> = errs
                .errors
                .iter()
                .map(|e| display_error(source, e.pos.0, e.pos.1, &e.msg))
                .collect();
            return Err(format!("compilation failed: {}", text.join("\n")));
        }
    };
    let mut found = Vec::new();
    undeclared(program.expression(), declared, &mut Vec::new(), &mut found);
    if !found.is_empty() {
        let info = program.source_info();
        let text: Vec<String> = found
            .iter()
            .map(|(id, name)| {
                let offset = info.offset_for(*id).map_or(0, |(start, _)| start as usize);
                let (line, col) = position(source, offset);
                display_error(
                    source,
                    line,
                    col,
                    &format!("undeclared reference to '{name}' (in container '')"),
                )
            })
            .collect();
        return Err(format!("compilation failed: {}", text.join("\n")));
    }
    Ok(Compiled {
        source: source.to_string(),
        program: Arc::new(program),
    })
}

/// A JSON value as the CEL value upstream's unstructured conversion gives: integers are
/// `int`, other numbers `double`.
pub fn to_cel(v: &Value) -> cel::Value {
    match v {
        Value::Null => cel::Value::Null,
        Value::Bool(b) => cel::Value::Bool(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => cel::Value::Int(i),
            None => match n.as_u64() {
                Some(u) => cel::Value::UInt(u),
                None => cel::Value::Float(n.as_f64().unwrap_or(0.0)),
            },
        },
        Value::String(s) => cel::Value::String(Arc::new(s.clone())),
        Value::Array(a) => cel::Value::List(Arc::new(a.iter().map(to_cel).collect())),
        Value::Object(m) => {
            let map: HashMap<String, cel::Value> =
                m.iter().map(|(k, v)| (k.clone(), to_cel(v))).collect();
            cel::Value::from(map)
        }
    }
}

/// The values of the variables an evaluation sees (each a JSON value; `null` when absent).
#[derive(Debug, Clone, Default)]
pub struct Activation {
    /// Each variable's value, by name.
    pub values: Vec<(&'static str, cel::Value)>,
}

impl Activation {
    /// An activation with `object`, `oldObject`, `request`, `namespaceObject`, and a null
    /// `params` (policies without `paramKind`).
    pub fn new(object: &Value, old: &Value, request: &Value, namespace: &Value) -> Activation {
        Activation {
            values: vec![
                ("object", to_cel(object)),
                ("oldObject", to_cel(old)),
                ("request", to_cel(request)),
                ("namespaceObject", to_cel(namespace)),
                ("params", cel::Value::Null),
            ],
        }
    }

    /// Adds `variables` (a map of the policy's evaluated `spec.variables`).
    pub fn with_variables(mut self, vars: HashMap<String, cel::Value>) -> Activation {
        self.values.push(("variables", cel::Value::from(vars)));
        self
    }
}

/// cel-go's text for the errors whose text differs in cel-rust; others keep cel-rust's.
fn error_text(e: &ExecutionError) -> String {
    match e {
        ExecutionError::NoSuchKey(k) => format!("no such key: {k}"),
        other => other.to_string(),
    }
}

impl Compiled {
    /// Evaluates the expression. `Err` is upstream's runtime error text:
    /// `expression 'E' resulted in error: …`.
    pub fn eval(&self, activation: &Activation) -> Result<cel::Value, String> {
        let mut ctx = Context::with_env(ENV.clone());
        for (name, value) in &activation.values {
            ctx.add_variable_from_value(*name, value.clone());
        }
        self.program.execute(&ctx).map_err(|e| {
            let text = match &e {
                ExecutionError::NoSuchOverload(o)
                    if o.function() == "_._"
                        && o.argument_types().first().map(String::as_str) == Some("null_type") =>
                {
                    null_select(self.program.expression(), &ctx)
                        .map_or_else(|| error_text(&e), |f| format!("no such key: {f}"))
                }
                _ => error_text(&e),
            };
            format!("expression '{}' resulted in error: {text}", self.source)
        })
    }
}

/// The field of the first selection `x.f` (in evaluation order) whose operand is null: cel-go
/// reports selecting a field of a value that is not a map as `no such key: f`, where cel-rust
/// reports no overload of `_._` for `null_type`.
fn null_select(e: &IdedExpr, ctx: &Context) -> Option<String> {
    let children: Vec<&IdedExpr> = match &e.expr {
        Expr::Select(s) => {
            if let Some(f) = null_select(&s.operand, ctx) {
                return Some(f);
            }
            if !s.test && matches!(ctx.resolve(&s.operand), Ok(cel::Value::Null)) {
                return Some(s.field.clone());
            }
            return None;
        }
        Expr::Call(c) => c.target.iter().map(|t| &**t).chain(c.args.iter()).collect(),
        Expr::List(l) => l.elements.iter().collect(),
        Expr::Comprehension(c) => vec![&c.iter_range],
        _ => Vec::new(),
    };
    children.into_iter().find_map(|c| null_select(c, ctx))
}

#[cfg(test)]
mod tests;
