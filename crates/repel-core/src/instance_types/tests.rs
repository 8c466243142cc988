//! Unit tests of `crate::instance_types`.

use super::*;

#[test]
fn aws_pod_density_is_the_eni_formula_of_eni_max_pods() {
    // Values of the EKS AMI's eni-max-pods.txt.
    for (name, pods) in [
        ("t3.medium", 17),
        ("t3.large", 35),
        ("m5.large", 29),
        ("m5.xlarge", 58),
        ("m5.4xlarge", 234),
        ("c5.large", 29),
        ("g4dn.xlarge", 29),
        ("g5.xlarge", 58),
        ("m5a.2xlarge", 58),
        ("p3.8xlarge", 234),
        ("p3dn.24xlarge", 737),
        ("p4d.24xlarge", 737),
    ] {
        let t = lookup(name).unwrap_or_else(|| panic!("{name} not in the catalogue"));
        assert_eq!(t.max_pods(None), pods, "{name}");
    }
}

#[test]
fn azure_takes_the_pools_max_pods_else_the_kubelets() {
    let t = lookup("standard_d4s_v3").expect("case-insensitive");
    assert_eq!(t.name, "Standard_D4s_v3");
    assert_eq!(t.max_pods(Some(30)), 30);
    assert_eq!(t.max_pods(None), 110);
    assert!(lookup("M5.LARGE").is_none(), "AWS names are exact");
}

#[test]
fn capacity_carries_gpus_only_for_gpu_types() {
    let g = lookup("g4dn.xlarge").expect("in catalogue").capacity(None);
    assert_eq!(g.get("cpu").map(String::as_str), Some("4"));
    assert_eq!(g.get("memory").map(String::as_str), Some("16384Mi"));
    assert_eq!(g.get("pods").map(String::as_str), Some("29"));
    assert_eq!(g.get(NVIDIA_GPU).map(String::as_str), Some("1"));
    let m = lookup("m5.large").expect("in catalogue").capacity(None);
    assert!(!m.contains_key(NVIDIA_GPU));
}

#[test]
fn names_are_unique() {
    let mut names: Vec<&str> = CATALOGUE.iter().map(|t| t.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), CATALOGUE.len());
}

#[test]
fn overrides() {
    let (n, c) =
        parse_override("x1.big=cpu=64,memory=512Gi,pods=110,nvidia.com/gpu=2").expect("valid");
    assert_eq!(n, "x1.big");
    assert_eq!(c.len(), 4);
    for (bad, want) in [
        ("nothing", "want NAME=cpu=N"),
        ("=cpu=1", "the name is empty"),
        ("a=cpu=1,memory=1Gi", "pods is missing"),
        ("a=cpu=one,memory=1Gi,pods=1", "is not a quantity"),
        ("a=cpu=-1,memory=1Gi,pods=1", "is not a quantity"),
        ("a=cpu,memory=1Gi,pods=1", "is not RESOURCE=QUANTITY"),
        ("a=cpu=1,cpu=2,memory=1Gi,pods=1", "cpu given twice"),
    ] {
        let e = parse_override(bad).expect_err(bad);
        assert!(e.contains(want), "{bad}: {e}");
    }
}
