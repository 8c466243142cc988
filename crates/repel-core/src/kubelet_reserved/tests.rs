use super::*;

const GIB: i64 = 1 << 30;

fn figures(cpu: &str, memory: &str, pods: &str) -> BTreeMap<String, String> {
    BTreeMap::from([
        ("cpu".to_string(), cpu.to_string()),
        ("memory".to_string(), memory.to_string()),
        ("pods".to_string(), pods.to_string()),
    ])
}

/// aws/karpenter-provider-aws `pkg/providers/instancetype/suite_test.go`, Context "Overhead"
/// (the instance is `m5.xlarge`: 4 vCPUs, 16 GiB, 58 ENI-limited pods):
/// <https://github.com/aws/karpenter-provider-aws/blob/main/pkg/providers/instancetype/suite_test.go>
#[test]
fn karpenter_aws_overhead() {
    let m5_xlarge = crate::instance_types::lookup("m5.xlarge").expect("in the catalogue");
    let pods = m5_xlarge.max_pods(None);
    let r = reserved(
        NodeImage::KarpenterAws,
        i64::from(m5_xlarge.cpu) * 1000,
        i64::try_from(m5_xlarge.memory_mib).unwrap_or_default() * MI,
        pods,
    );
    // Context "System Reserved Resources", It "should use defaults when no kubelet is specified":
    // SystemReserved cpu "0", memory "0".
    assert_eq!((r.system_cpu, r.system_memory), (0, 0), "system reserved");
    // Context "Kube Reserved Resources", It "should use defaults when no kubelet is specified":
    // KubeReserved cpu "80m", memory "893Mi".
    assert_eq!(cpu_quantity(r.kube_cpu), "80m", "kube reserved cpu");
    assert_eq!(
        bytes_quantity(r.kube_memory),
        "893Mi",
        "kube reserved memory"
    );
    // evictionThreshold's default overhead: memory "100Mi".
    assert_eq!(
        bytes_quantity(r.eviction_memory),
        "100Mi",
        "eviction threshold"
    );
}

/// Azure/karpenter-provider-azure `pkg/providers/instancetype/kube_reserved_test.go`,
/// `TestKubeReservedResources`:
/// <https://github.com/Azure/karpenter-provider-azure/blob/main/pkg/providers/instancetype/kube_reserved_test.go>
#[test]
fn test_kube_reserved_resources() {
    for (name, cpus, memory_gib, want_cpu, want_memory) in [
        ("4 cores, 7GiB", 4, 7, "140m", "1638Mi"),
        ("2 cores, 8GiB", 2, 8, "100m", "1843Mi"),
        ("3 cores, 64GiB", 3, 64, "120m", "5611Mi"),
    ] {
        let r = reserved(
            NodeImage::KarpenterAzure,
            cpus * 1000,
            memory_gib * GIB,
            110,
        );
        assert_eq!(cpu_quantity(r.kube_cpu), want_cpu, "{name}");
        assert_eq!(bytes_quantity(r.kube_memory), want_memory, "{name}");
        assert_eq!(bytes_quantity(r.eviction_memory), "750Mi", "{name}");
    }
}

/// awslabs/amazon-eks-ami `nodeadm/internal/kubelet/config_test.go`,
/// `TestKubeReservedMemoryWithUserMaxPods`: 100 pods reserve "1355Mi".
#[test]
fn test_kube_reserved_memory_with_user_max_pods() {
    assert_eq!(eks_memory_mebibytes_to_reserve(100), 1355);
}

/// `getCPUMillicoresToReserve`'s ranges, and the same figures through Karpenter's.
#[test]
fn eks_cpu_ranges() {
    for (cores, want) in [(1, 60), (2, 70), (4, 80), (8, 90), (16, 110), (96, 310)] {
        assert_eq!(
            eks_cpu_millicores_to_reserve(cores * 1000),
            want,
            "{cores} cores"
        );
    }
}

/// Microsoft's "Node resource reservations in Azure Kubernetes Service (AKS)":
/// <https://learn.microsoft.com/en-us/azure/aks/node-resource-reservations> — the CPU table,
/// and the two memory examples of "AKS 1.29 and later".
#[test]
fn aks_node_resource_reservations() {
    for (cores, want) in [
        (1, 60),
        (2, 100),
        (4, 140),
        (8, 180),
        (16, 260),
        (32, 420),
        (64, 740),
    ] {
        assert_eq!(aks_cpu_reserved(cores), want, "{cores} cores");
    }
    // "If the virtual machine (VM) provides 8 GB of memory and the node supports up to 30
    // pods, AKS reserves 20 MB * 30 Max Pods + 50 MB = 650 MB for kube-reserved."
    let r = reserved(NodeImage::Aks, 2000, 8 * GIB, 30);
    assert_eq!(bytes_quantity(r.kube_memory), "650Mi");
    assert_eq!(bytes_quantity(r.eviction_memory), "100Mi");
    // "If the VM provides 4 GB of memory and the node supports up to 70 pods, AKS reserves
    // 25% * 4 GB = 1000 MB for kube-reserved, as this is less than 20 MB * 70 Max Pods + 50
    // MB = 1450 MB." (the page rounds 25 % of 4 GB to 1000 MB).
    let r = reserved(NodeImage::Aks, 2000, 4 * GIB, 70);
    assert_eq!(bytes_quantity(r.kube_memory), "1024Mi");
}

#[test]
fn node_resources_per_image() {
    // An m5.large (2 vCPUs, 8 GiB, 29 pods).
    let m5 = figures("2", "8192Mi", "29");
    /// Name, image, Graviton, capacity memory, allocatable cpu and memory.
    type Case = (
        &'static str,
        Option<NodeImage>,
        bool,
        &'static str,
        &'static str,
        &'static str,
    );
    let cases: [Case; 5] = [
        (
            "no image: allocatable is the capacity",
            None,
            false,
            "8192Mi",
            "2",
            "8192Mi",
        ),
        (
            "the EKS AMI: 70m, 11×29+255 = 574Mi and 100Mi eviction",
            Some(NodeImage::EksAmi),
            false,
            "8192Mi",
            "1930m",
            "7518Mi",
        ),
        (
            "Karpenter on AWS: 615Mi VM overhead off the capacity first",
            Some(NodeImage::KarpenterAws),
            false,
            "7577Mi",
            "1930m",
            "6903Mi",
        ),
        (
            "Karpenter on AWS, Graviton: 64Mi less before the overhead",
            Some(NodeImage::KarpenterAws),
            true,
            "7518Mi",
            "1930m",
            "6844Mi",
        ),
        (
            "AKS: 100m, min(20×29+50, 2048) = 630Mi and 100Mi eviction",
            Some(NodeImage::Aks),
            false,
            "8192Mi",
            "1900m",
            "7462Mi",
        ),
    ];
    for (name, image, arm64, cap_memory, cpu, memory) in cases {
        let r = node_resources(image, &m5, None, arm64);
        assert_eq!(r.capacity["cpu"], "2", "{name}");
        assert_eq!(r.capacity["memory"], cap_memory, "{name}");
        assert_eq!(r.allocatable["cpu"], cpu, "{name}");
        assert_eq!(r.allocatable["memory"], memory, "{name}");
        assert_eq!(r.allocatable["pods"], "29", "{name}: pods are not reserved");
    }
}

#[test]
fn karpenter_azure_capacity_is_not_a_whole_mebibyte() {
    // 7 GiB less 7.5 % rounded up to a byte: 7516192768 − 563714458.
    let r = node_resources(
        Some(NodeImage::KarpenterAzure),
        &figures("2", "7Gi", "30"),
        None,
        false,
    );
    assert_eq!(r.capacity["memory"], "6952478310");
    // Less 1638Mi kube-reserved and 750Mi eviction.
    assert_eq!(
        r.allocatable["memory"],
        (6_952_478_310_i64 - (1638 + 750) * MI).to_string()
    );
    assert_eq!(r.allocatable["cpu"], "1900m");
}

#[test]
fn reserve_pods_and_devices() {
    let mut f = figures("4", "16Gi", "110");
    f.insert("nvidia.com/gpu".into(), "1".into());
    // The EKS AMI reserves for its ENI-limited 58 pods even when the node runs 110.
    let r = node_resources(Some(NodeImage::EksAmi), &f, Some(58), false);
    assert_eq!(r.allocatable["memory"], format!("{}Mi", 16384 - 893 - 100));
    assert_eq!(r.allocatable["pods"], "110");
    assert_eq!(
        r.allocatable["nvidia.com/gpu"], "1",
        "devices are not reserved"
    );
    // Figures that do not parse are left alone.
    let bad = figures("many", "16Gi", "110");
    let r = node_resources(Some(NodeImage::EksAmi), &bad, None, false);
    assert_eq!(r.allocatable, bad);
    // Never below zero; 6 % of 10m truncates to nothing.
    let tiny = figures("10m", "64Mi", "110");
    let r = node_resources(Some(NodeImage::EksAmi), &tiny, None, false);
    assert_eq!(r.allocatable["cpu"], "10m");
    assert_eq!(r.allocatable["memory"], "0");
}

#[test]
fn images_by_provider() {
    for (provider, cloud, want) in [
        ("eksctl", "aws", Some(NodeImage::EksAmi)),
        ("eks", "aws", Some(NodeImage::EksAmi)),
        ("aks", "azure", Some(NodeImage::Aks)),
        ("karpenter", "aws", Some(NodeImage::KarpenterAws)),
        ("karpenter", "azure", Some(NodeImage::KarpenterAzure)),
        ("gke", "gcp", None),
    ] {
        assert_eq!(NodeImage::of(provider, cloud), want, "{provider}/{cloud}");
    }
}
