//! Unit tests of `crate::gofmt`.

use super::*;
use serde_json::json;

#[test]
fn go_value_cases() {
    let cases = [
        (
            "maps print sorted, space separated",
            json!({"b": 1, "a": "x"}),
            "map[a:x b:1]",
        ),
        (
            "nested list",
            json!({"spec": {"foo": [1, "a"]}}),
            "map[spec:map[foo:[1 a]]]",
        ),
        ("null is <nil>", json!({"a": null}), "map[a:<nil>]"),
        ("bools", json!([true, false]), "[true false]"),
        ("float", json!(0.5), "0.5"),
        ("large float uses exponent", json!(1e21), "1e+21"),
        (
            "a million as a float is 1e+06",
            json!(1000000.5e0 - 0.5),
            "1e+06",
        ),
        (
            "many digits keep all of them",
            json!(123456789.5),
            "1.234567895e+08",
        ),
        ("small float uses exponent", json!(0.00001), "1e-05"),
        (
            "float below exponent threshold",
            json!(123456.5),
            "123456.5",
        ),
    ];
    for (name, v, want) in cases {
        assert_eq!(go_value(&v), want, "{name}");
    }
}

#[test]
fn go_s_and_go_type_cases() {
    let cases = [
        ("a string prints bare", json!("bogus"), "bogus", "string"),
        (
            "an integer is a bad verb",
            json!(1),
            "%!s(int64=1)",
            "int64",
        ),
        ("a negative integer", json!(-7), "%!s(int64=-7)", "int64"),
        (
            "a float is a bad verb with %v inside",
            json!(1.5),
            "%!s(float64=1.5)",
            "float64",
        ),
        (
            "an integer too large for int64 is decoded as a float64",
            json!(18446744073709551615_u64),
            "%!s(float64=1.8446744073709552e+19)",
            "float64",
        ),
        ("a bool", json!(true), "%!s(bool=true)", "bool"),
        ("a top-level null", json!(null), "%!s(<nil>)", "%!s(<nil>)"),
        (
            "a list prints its elements with %s, a nested null as <nil>",
            json!(["a", 1, null]),
            "[a %!s(int64=1) <nil>]",
            "[]interface {}",
        ),
        (
            "a map sorts its keys and prints values with %s",
            json!({"b": true, "a": "x"}),
            "map[a:x b:%!s(bool=true)]",
            "map[string]interface {}",
        ),
    ];
    for (name, v, s, ty) in cases {
        assert_eq!(go_s(&v), s, "{name}");
        assert_eq!(go_type(&v), ty, "{name}");
    }
}
