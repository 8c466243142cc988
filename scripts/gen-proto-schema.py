#!/usr/bin/env python3
"""Writes crates/repel-server/src/proto/schema.rs: the protobuf messages of the served group
versions, for the table-driven protobuf <-> JSON codec of `repel serve`.

Two inputs, both read only:
  * the k8s-pb crate's source (the version in Cargo.lock, from the cargo registry): each
    message's fields, their protobuf tags, wire types and message types (prost attributes);
  * the Go types of k8s.io/api and k8s.io/apimachinery (a checkout of each): each field's JSON
    name, whether it is a pointer, `omitempty` or inlined (`json:",inline"`), matched to the
    k8s-pb field by struct name and protobuf tag (the Go field's `protobuf:"…,N,…"`).
A k8s-pb field with no Go counterpart takes its JSON name from its Rust name in camelCase and
is written whenever present.

The committed table was written from k8s-pb 0.9.0 and the Go types of kubernetes/api at
10b39a39bcee995dfe7cd5e8e7b922be5e46f1e2 and kubernetes/apimachinery at
eed236ceee2c19c2753a3d93ac0631dc20750454 (`git archive HEAD core/v1 apps/v1 … | tar -x`, the
directories PACKAGES names). The module is `#[rustfmt::skip]`: the output is committed as written.

usage: gen-proto-schema.py K8S_PB_SRC GO_API GO_APIMACHINERY > crates/repel-server/src/proto/schema.rs
"""

import os
import re
import sys

# k8s-pb module (under src/) -> Go source directory (api: kubernetes/api, am: apimachinery).
PACKAGES = {
    "api/core/v1": ("api", "core/v1"),
    "api/apps/v1": ("api", "apps/v1"),
    "api/batch/v1": ("api", "batch/v1"),
    "api/policy/v1": ("api", "policy/v1"),
    "api/coordination/v1": ("api", "coordination/v1"),
    "api/scheduling/v1": ("api", "scheduling/v1"),
    "api/autoscaling/v1": ("api", "autoscaling/v1"),
    "api/autoscaling/v2": ("api", "autoscaling/v2"),
    "api/networking/v1": ("api", "networking/v1"),
    "api/storage/v1": ("api", "storage/v1"),
    "api/rbac/v1": ("api", "rbac/v1"),
    "api/admissionregistration/v1": ("api", "admissionregistration/v1"),
    "apimachinery/pkg/apis/meta/v1": ("am", "pkg/apis/meta/v1"),
    "apimachinery/pkg/runtime": ("am", "pkg/runtime"),
    "apimachinery/pkg/util/intstr": ("am", "pkg/util/intstr"),
    "apimachinery/pkg/api/resource": ("am", "pkg/api/resource"),
}

ATTR = re.compile(r"#\[prost\((.*)\)\]")
FIELD = re.compile(r"pub (?:r#)?(\w+): (.+),$")
STRUCT = re.compile(r"^pub struct (\w+) \{")


def rust_messages(src, module):
    """(struct name -> [(tag, rust name, attr, rust type)]) of one k8s-pb module."""
    text = open(os.path.join(src, module, "mod.rs")).read().split("\n")
    out, cur, attr, pending = {}, None, None, ""
    for line in text:
        s = line.strip()
        # A field whose type rustfmt spread over several lines: gathered until it closes.
        if pending:
            s = pending + " " + s
            pending = ""
        if re.match(r"pub (?:r#)?\w+:", s) and (s.count("<") != s.count(">") or not s.endswith(",")):
            pending = s
            continue
        s = re.sub(r"<\s+", "<", re.sub(r",\s*>", ">", s))
        m = STRUCT.match(line)
        if m:
            cur = m.group(1)
            out[cur] = []
            continue
        if cur is None:
            continue
        if line.startswith("}"):
            cur = None
            continue
        m = ATTR.match(s)
        if m:
            attr = m.group(1)
            continue
        m = FIELD.match(s)
        if m and attr:
            tag = int(re.search(r'tag = "(\d+)"', attr).group(1))
            out[cur].append((tag, m.group(1), attr, m.group(2)))
            attr = None
    return out


GO_STRUCT = re.compile(r"^type (\w+) struct \{")
GO_FIELD = re.compile(r"^\s*(?:(\w+)\s+)?(\S+)\s+`([^`]*)`")


def go_fields(root, d):
    """(struct, tag) -> (json name, pointer, omitempty, inline) of one Go package."""
    out = {}
    path = os.path.join(root, d)
    for f in sorted(os.listdir(path)):
        if not f.endswith(".go") or f.endswith("_test.go") or "generated" in f:
            continue
        cur = None
        for line in open(os.path.join(path, f)):
            m = GO_STRUCT.match(line)
            if m:
                cur = m.group(1)
                continue
            if cur is None:
                continue
            if line.startswith("}"):
                cur = None
                continue
            m = GO_FIELD.match(line)
            if not m:
                continue
            ty, tags = m.group(2), m.group(3)
            pm = re.search(r'protobuf:"[a-z0-9]+,(\d+),', tags)
            jm = re.search(r'json:"([^"]*)"', tags)
            if not pm or not jm:
                continue
            parts = jm.group(1).split(",")
            # An embedded struct without a JSON name is inlined by encoding/json, as is `,inline`.
            out[(cur.lower(), int(pm.group(1)))] = (
                parts[0],
                ty.startswith("*"),
                "omitempty" in parts[1:],
                (m.group(1) is None and parts[0] == "") or "inline" in parts[1:],
            )
    return out


def camel(name):
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def resolve(module, ty):
    """The message a Rust type names, as (module, struct)."""
    ty = ty.strip()
    for wrap in ("::core::option::Option<", "::prost::alloc::vec::Vec<",
                 "::prost::alloc::boxed::Box<"):
        if ty.startswith(wrap):
            return resolve(module, ty[len(wrap):-1])
    if ty.startswith("::prost::alloc::collections::BTreeMap<") or ty.startswith("::std::collections::BTreeMap<"):
        inner = ty[ty.index("<") + 1:-1]
        return resolve(module, inner.split(",", 1)[1])
    parts = ty.split("::")
    mod = module.split("/")
    i = 0
    while i < len(parts) and parts[i] == "super":
        mod = mod[:-1]
        i += 1
    if parts[i] == "crate":
        mod, i = [], i + 1
    mod = mod + parts[i:-1]
    return ("/".join(mod), parts[-1])


def main():
    src, goapi, goam = sys.argv[1:4]
    roots = {"api": goapi, "am": goam}
    rust = {m: rust_messages(src, m) for m in PACKAGES}
    go = {m: go_fields(roots[r], d) for m, (r, d) in PACKAGES.items()}
    # Sorted by the dotted name the codec binary-searches.
    names = sorted(((m, s) for m in rust for s in rust[m]),
                   key=lambda n: n[0].replace("/", ".") + "." + n[1])
    index = {n: i for i, n in enumerate(names)}
    print("// @generated by scripts/gen-proto-schema.py from the k8s-pb crate's messages and the Go")
    print("// types of k8s.io/api and k8s.io/apimachinery (JSON names, pointers, omitempty, inline).")
    print("// Do not edit.")
    print()
    print("use super::{Field, Message, Ty};")
    print()
    print(f"pub(super) static MESSAGES: [Message; {len(names)}] = [")
    unmatched = 0
    for (m, s) in names:
        fields = []
        for tag, rname, attr, rty in sorted(rust[m][s]):
            g = go[m].get((s.lower(), tag))  # Go: HTTPGetAction, prost: HttpGetAction
            if g is None:
                unmatched += 1
                json, emit_zero, inline = camel(rname), True, False
            else:
                json, ptr, omit, inline = g
                emit_zero = ptr or not omit
            rep = "repeated" in attr
            kind = attr.split(",")[0].strip()
            if kind.startswith("btree_map"):
                v = re.search(r'"string, (\w+)"', attr).group(1)
                if v == "message":
                    t = f"Ty::MapMsg({index[resolve(m, rty)]})"
                else:
                    t = {"string": "Ty::MapStr", "bytes": "Ty::MapBytes"}[v]
            elif kind == "message":
                t = f"Ty::Msg({index[resolve(m, rty)]})"
            else:
                t = {"string": "Ty::Str", "bool": "Ty::Bool", "int32": "Ty::I32",
                     "int64": "Ty::I64", "double": "Ty::F64"}.get(kind)
                if kind.startswith("bytes"):
                    t = "Ty::Bytes"
                if t is None:
                    raise SystemExit(f"unknown prost type {attr} in {m}.{s}")
            fields.append(
                f"Field {{ tag: {tag}, json: {json!r}, ty: {t}, repeated: {str(rep).lower()}, "
                f"emit_zero: {str(emit_zero).lower()}, inline: {str(inline).lower()} }}"
                .replace("'", '"'))
        name = m.replace("/", ".") + "." + s
        print(f"    Message {{ name: \"{name}\", fields: &[")
        for f in fields:
            print(f"        {f},")
        print("    ] },")
    print("];")
    print(f"generated {len(names)} messages, {unmatched} fields without a Go counterpart", file=sys.stderr)


main()
