//! kube-rs as a second real client: list, get (404 as `Error::Api`), merge patch, watch.

use crate::util::{node, pod, start};
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::{Node, Pod};
use kube::api::{Api, ListParams, Patch, PatchParams, WatchEvent, WatchParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Client, Config};
use serde_json::json;

#[test]
fn kube_rs_lists_patches_and_watches() {
    let s = start(vec![
        node("node1", json!(null)),
        node("node2", json!(null)),
        pod("default", "web", Some("node1")),
    ]);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let kc = Kubeconfig::read_from(&s.kubeconfig).unwrap();
        let cfg = Config::from_custom_kubeconfig(kc, &KubeConfigOptions::default())
            .await
            .unwrap();
        let client = Client::try_from(cfg).unwrap();
        let nodes: Api<Node> = Api::all(client.clone());
        let list = nodes.list(&ListParams::default()).await.unwrap();
        let names: Vec<String> = list.items.iter().map(|n| n.metadata.name.clone().unwrap()).collect();
        assert_eq!(names, vec!["node1", "node2"]);

        match nodes.get("nope").await {
            Err(kube::Error::Api(e)) => {
                assert_eq!((e.code, e.reason.as_str()), (404, "NotFound"));
                assert_eq!(e.message, "nodes \"nope\" not found");
            }
            other => panic!("expected a 404, got {other:?}"),
        }

        let patched = nodes
            .patch(
                "node1",
                &PatchParams::default(),
                &Patch::Merge(json!({"spec": {"taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}]}})),
            )
            .await
            .unwrap();
        let taints = patched.spec.unwrap().taints.unwrap();
        assert_eq!((taints[0].key.as_str(), taints[0].effect.as_str()), ("k", "NoSchedule"));

        let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
        let rv = pods.list(&ListParams::default()).await.unwrap().metadata.resource_version.unwrap();
        let mut stream = pods.watch(&WatchParams::default(), &rv).await.unwrap().boxed();
        let p = pods
            .patch(
                "web",
                &PatchParams::default(),
                &Patch::Merge(json!({"metadata": {"labels": {"tier": "web"}}})),
            )
            .await
            .unwrap();
        assert_eq!(p.metadata.labels.unwrap()["tier"], "web");
        match stream.try_next().await.unwrap() {
            Some(WatchEvent::Modified(p)) => {
                assert_eq!(p.metadata.name.as_deref(), Some("web"));
                assert_eq!(p.metadata.labels.unwrap()["tier"], "web");
            }
            other => panic!("expected MODIFIED, got {other:?}"),
        }
        pods.delete("web", &Default::default()).await.unwrap();
        // Graceful: first marked (Terminating), then gone once its kubelet stopped it.
        match stream.try_next().await.unwrap() {
            Some(WatchEvent::Modified(p)) => assert!(p.metadata.deletion_timestamp.is_some()),
            other => panic!("expected MODIFIED with a deletionTimestamp, got {other:?}"),
        }
        match stream.try_next().await.unwrap() {
            Some(WatchEvent::Deleted(p)) => assert_eq!(p.metadata.name.as_deref(), Some("web")),
            other => panic!("expected DELETED, got {other:?}"),
        }

        // A watch with a field selector sees a pod enter its selection when the scheduler
        // binds it (ADDED, as upstream's cacher), never the unbound pod.
        let rv = pods.list(&ListParams::default()).await.unwrap().metadata.resource_version.unwrap();
        let wp = WatchParams::default().fields("spec.nodeName=node2");
        let mut on_node2 = pods.watch(&wp, &rv).await.unwrap().boxed();
        let mut new: Pod = serde_json::from_value(pod("default", "late", None)).unwrap();
        new.spec.as_mut().unwrap().node_selector =
            Some([("kubernetes.io/hostname".to_string(), "node2".to_string())].into());
        pods.create(&Default::default(), &new).await.unwrap();
        match on_node2.try_next().await.unwrap() {
            Some(WatchEvent::Added(p)) => {
                assert_eq!(p.metadata.name.as_deref(), Some("late"));
                assert_eq!(p.spec.unwrap().node_name.as_deref(), Some("node2"));
            }
            other => panic!("expected ADDED on binding, got {other:?}"),
        }
        // kube-rs asks for bookmarks: one comes within the watch's tick, with the store's rv.
        let bookmark = tokio::time::timeout(std::time::Duration::from_secs(5), async {
            loop {
                if let Some(WatchEvent::Bookmark(b)) = on_node2.try_next().await.unwrap() {
                    return b;
                }
            }
        })
        .await
        .expect("a BOOKMARK");
        assert!(bookmark.metadata.resource_version.parse::<u64>().unwrap() > rv.parse::<u64>().unwrap());
    });
}
