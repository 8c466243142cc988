//! Unit tests of `crate::pool_steps`.

use super::*;

use repel_core::testing::taint;

#[test]
fn the_guides_az_command_lines() {
    assert_eq!(
        parse_az(
            "az aks nodepool update --resource-group rg --cluster-name c --name gpu --node-taints \"sku=gpu:NoSchedule\""
        ),
        Ok(PoolCommand::Aks {
            verb: "update".into(),
            resource_group: "rg".into(),
            cluster: "c".into(),
            pool: "gpu".into(),
            taints: Some(vec![taint("sku", "gpu", "NoSchedule")]),
            count: None,
        })
    );
    let Ok(PoolCommand::Aks { taints, .. }) =
        parse_az("aks nodepool update -g rg --cluster-name c -n gpu --node-taints \"\"")
    else {
        panic!("not read");
    };
    assert_eq!(taints, Some(vec![]));
    let Ok(PoolCommand::Aks { count, .. }) =
        parse_az("az aks nodepool scale -g rg --cluster-name c --name gpu --node-count 3")
    else {
        panic!("not read");
    };
    assert_eq!(count, Some(3));
}

#[test]
fn az_refuses_as_azure_cli_does() {
    for (line, want) in [
        (
            "az aks nodepool update -g rg --cluster-name c --name gpu --node-taints sku:NoSchedule",
            "Invalid node taint: sku:NoSchedule",
        ),
        (
            "az aks nodepool update -g rg --cluster-name c --name gpu --node-taints a=b:NoSchedule,c=d:Sometimes",
            "Invalid node taint: c=d:Sometimes",
        ),
        (
            "az aks nodepool update --cluster-name c --node-taints a=b:NoSchedule",
            "az aks nodepool update: error: the following arguments are required: --resource-group/-g, --name/-n",
        ),
        (
            "az aks nodepool scale -g rg --cluster-name c --name gpu --node-count x",
            "az aks nodepool scale: error: argument --node-count/-c: invalid int value: 'x'",
        ),
        (
            "az aks nodepool update -g rg --cluster-name c --name gpu --bogus 1",
            "az aks nodepool update: error: unrecognized arguments: --bogus",
        ),
    ] {
        assert_eq!(parse_az(line), Err(want.to_string()), "{line}");
    }
}

#[test]
fn the_guides_aws_command_line_in_shorthand_and_json() {
    let want = PoolCommand::Eks {
        cluster: "c".into(),
        nodegroup: "ng".into(),
        add: vec![taint("k", "v", "NoSchedule")],
        remove: vec![taint("old", "", "NoExecute")],
        desired: Some(4),
    };
    assert_eq!(
        parse_aws(
            "aws eks update-nodegroup-config --cluster-name c --nodegroup-name ng --taints 'addOrUpdateTaints=[{key=k,value=v,effect=NO_SCHEDULE}],removeTaints=[{key=old,effect=NO_EXECUTE}]' --scaling-config minSize=1,maxSize=5,desiredSize=4"
        ),
        Ok(want.clone())
    );
    assert_eq!(
        parse_aws(
            r#"eks update-nodegroup-config --cluster-name c --nodegroup-name ng --taints '{"addOrUpdateTaints":[{"key":"k","value":"v","effect":"NO_SCHEDULE"}],"removeTaints":[{"key":"old","effect":"NO_EXECUTE"}]}' --scaling-config '{"desiredSize":4}'"#
        ),
        Ok(want)
    );
}

#[test]
fn aws_refuses_with_its_messages() {
    assert_eq!(
        parse_aws("aws eks update-nodegroup-config --cluster-name c"),
        Err("aws: error: the following arguments are required: --nodegroup-name".into())
    );
    assert_eq!(
        parse_aws("aws eks update-nodegroup-config --cluster-name c --nodegroup-name n --taint x"),
        Err("Unknown options: --taint".into())
    );
    assert_eq!(
        parse_aws(
            "aws eks update-nodegroup-config --cluster-name c --nodegroup-name n --taints 'addOrUpdateTaints=[{value=v}]'"
        ),
        Err("Parameter validation failed:\nMissing required parameter in taints.addOrUpdateTaints[0]: \"key\"".into())
    );
    assert!(
        parse_aws(
            "aws eks update-nodegroup-config --cluster-name c --nodegroup-name n --taints 'addOrUpdateTaints=[{key=k'"
        )
        .is_err_and(|e| e.starts_with("Error parsing parameter '--taints': "))
    );
}
