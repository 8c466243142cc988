use serde_json::json;

use super::*;

#[test]
fn syntax_errors_print_as_cel_go_prints_them() {
    // validation_test.go's "invalid expression": column, message, snippet and caret.
    assert_eq!(
        compile("object.x in [1, 2, ", VARIABLES).err().as_deref(),
        Some(
            "compilation failed: ERROR: <input>:1:20: Syntax error: missing ']' at '<EOF>'\n | object.x in [1, 2, \n | ...................^"
        )
    );
}

#[test]
fn identifiers_must_be_declared_variables_types_or_comprehension_variables() {
    let declared = &["object", "oldObject", "request", "namespaceObject"];
    for ok in [
        "object.spec.tolerations.all(t, has(t.key))",
        "object.spec.tolerations.exists(t, t.effect == 'NoExecute') || oldObject == null",
        "type(object.spec) == map && request.operation == 'CREATE'",
        "[1, 2].map(x, x * 2).exists(y, y > 3)",
        // Kubernetes v1.33's two-variable comprehensions bind both variables (cel-rust cannot
        // run them: the call fails when it runs).
        "object.spec.tolerations.all(i, t, i < 10 && has(t.key))",
    ] {
        assert!(compile(ok, declared).is_ok(), "{ok}");
    }
    assert_eq!(
        compile("object.a.all(t, t) && t", declared)
            .err()
            .as_deref(),
        Some(
            "compilation failed: ERROR: <input>:1:23: undeclared reference to 't' (in container '')\n | object.a.all(t, t) && t\n | ......................^"
        )
    );
}

#[test]
fn evident_result_types_are_checked() {
    assert_eq!(
        check("0 == 0", VARIABLES, &[Kind::String]),
        Err("must evaluate to string".to_string())
    );
    assert_eq!(
        check("'x'", VARIABLES, &[Kind::Bool]),
        Err("must evaluate to bool".to_string())
    );
    assert_eq!(check("object.x", VARIABLES, &[Kind::Bool]), Ok(()));
    assert_eq!(
        check("null", VARIABLES, &[Kind::String, Kind::Null]),
        Ok(())
    );
}

#[test]
fn json_integers_are_cel_ints() {
    let obj = json!({"spec": {"replicas": 3, "ratio": 0.5}});
    let act = Activation::new(&obj, &Value::Null, &json!({}), &Value::Null);
    let c = compile(
        "object.spec.replicas + 1 == 4 && object.spec.ratio < 1.0",
        VARIABLES,
    )
    .expect("compiles");
    assert_eq!(c.eval(&act), Ok(cel::Value::Bool(true)));
}

#[test]
fn runtime_errors_read_as_upstreams() {
    let act = Activation::new(&json!({"a": {}}), &Value::Null, &json!({}), &Value::Null);
    let run = |e: &str| compile(e, VARIABLES).expect("compiles").eval(&act);
    assert_eq!(
        run("object.a.b == 1"),
        Err("expression 'object.a.b == 1' resulted in error: no such key: b".to_string())
    );
    assert_eq!(
        run("oldObject.metadata.name == 'x'"),
        Err(
            "expression 'oldObject.metadata.name == 'x'' resulted in error: no such key: metadata"
                .to_string()
        )
    );
}

/// A departure the README states: cel-rust's `has()` of a field of null is an error (cel-go,
/// as Kubernetes configures it, answers false); a null guard works in both.
#[test]
fn has_of_a_field_of_null_is_an_error_and_a_guard_works() {
    let act = Activation::new(&json!({}), &Value::Null, &json!({}), &Value::Null);
    let run = |e: &str| compile(e, VARIABLES).expect("compiles").eval(&act);
    assert!(run("has(oldObject.spec)").is_err());
    assert_eq!(
        run("oldObject != null && has(oldObject.spec)"),
        Ok(cel::Value::Bool(false))
    );
}
