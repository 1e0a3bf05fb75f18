//! Kubernetes manifests: a Kubeflow PyTorchJob and a Volcano Job (gang-scheduled) for training,
//! a Deployment + Service + HorizontalPodAutoscaler sketch for serving. Resource names per
//! vendor: `nvidia.com/gpu` (NVIDIA device plugin), `huawei.com/Ascend910` (Ascend device plugin,
//! Ascend/ascend-device-plugin pkg/common/constants.go `HuaweiAscend910`), `aliyun/erdma` for
//! Alibaba eRDMA (AliyunContainerService/alibabacloud-erdma-controller README: "add
//! `aliyun/erdma` resource in pod spec", example value 1).

use super::view::{PlanView, ServeView};
use super::{netenv, serve, yaml, File};
use anyhow::Result;
use serde_json::{json, Map, Value};

/// Where the bundle (a ConfigMap made from the bundle directory) is mounted in the pods.
pub const BUNDLE_MOUNT: &str = "/gpuplan";
/// Where the plan's shared storage is mounted.
pub const DATA_MOUNT: &str = "/data";

pub fn files(p: &PlanView) -> Result<Vec<File>> {
    if p.serve.is_some() {
        return Ok(vec![File::new("k8s/deployment.yaml", serving(p)?)]);
    }
    Ok(vec![
        File::new("k8s/pytorchjob.yaml", pytorchjob(p)?),
        File::new("k8s/volcano-job.yaml", volcano_job(p)?),
    ])
}

/// The accelerator resource name of the plan's chip.
pub fn accelerator_resource(p: &PlanView) -> &'static str {
    match p.vendor.as_str() {
        "huawei" => "huawei.com/Ascend910",
        "amd" => "amd.com/gpu",
        _ => "nvidia.com/gpu",
    }
}

/// Container limits: the accelerators of one node (or one serving replica) and RDMA.
pub fn limits(p: &PlanView, accelerators: u64) -> Value {
    let mut m = Map::new();
    // Quantities as strings: the API takes int-or-string, the typed clients take strings.
    m.insert(
        accelerator_resource(p).into(),
        json!(accelerators.to_string()),
    );
    if p.nodes > 1 && netenv::link_key(p) == "erdma" && p.provider == "alibaba" {
        m.insert("aliyun/erdma".into(), json!("1"));
    }
    Value::Object(m)
}

/// Container env from the network profile; placeholders are visible REPLACE values.
fn env(p: &PlanView) -> Value {
    let mut out = vec![];
    if let Some(pr) = netenv::profile(p) {
        for v in &pr.vars {
            let value = match (&v.value, &v.placeholder) {
                (Some(val), _) => val.clone(),
                (None, Some(msg)) => format!("REPLACE: {msg}"),
                _ => continue,
            };
            out.push(json!({ "name": v.name, "value": value }));
        }
    }
    Value::Array(out)
}

fn volumes(p: &PlanView) -> (Value, Value) {
    let slug = p.slug();
    let mut vols = vec![
        json!({ "name": "dshm", "emptyDir": { "medium": "Memory" } }),
        json!({ "name": "bundle", "configMap": { "name": slug } }),
    ];
    let mut mounts = vec![
        json!({ "name": "dshm", "mountPath": "/dev/shm" }),
        json!({ "name": "bundle", "mountPath": BUNDLE_MOUNT }),
    ];
    if let Some(st) = p.train.as_ref().and_then(|t| t.storage.as_ref()) {
        vols.push(json!({ "name": "data", "persistentVolumeClaim": {
            "claimName": format!("REPLACE-pvc-for-{}", st.id) } }));
        mounts.push(json!({ "name": "data", "mountPath": DATA_MOUNT }));
    }
    (Value::Array(vols), Value::Array(mounts))
}

fn pod_template(p: &PlanView, container: &str, command: &str) -> Value {
    let (vols, mounts) = volumes(p);
    json!({
        "spec": {
            "containers": [{
                "name": container,
                "image": "REPLACE: a training image with PyTorch + the engine (DeepSpeed/Megatron) for this chip",
                "command": ["bash", "-c", command],
                "env": env(p),
                "resources": { "limits": limits(p, p.gpus_per_node) },
                "volumeMounts": mounts,
            }],
            "volumes": vols,
        }
    })
}

fn pytorchjob(p: &PlanView) -> Result<String> {
    // The training operator sets MASTER_ADDR/MASTER_PORT and PET_NODE_RANK per pod
    // (kubeflow/training-operator v1.9.0 pkg/controller.v1/pytorch/envvar.go).
    let cmd = format!("NODE_RANK=\"$PET_NODE_RANK\" bash {BUNDLE_MOUNT}/launch.sh");
    let template = pod_template(p, "pytorch", &cmd);
    let mut specs = json!({
        "Master": { "replicas": 1, "restartPolicy": "OnFailure", "template": template.clone() }
    });
    if p.nodes > 1 {
        specs["Worker"] =
            json!({ "replicas": p.nodes - 1, "restartPolicy": "OnFailure", "template": template });
    }
    let doc = json!({
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": { "name": p.slug() },
        "spec": {
            "nprocPerNode": p.gpus_per_node.to_string(),
            "pytorchReplicaSpecs": specs,
        }
    });
    yaml(
        p,
        &format!(
            "Kubeflow PyTorchJob (training-operator v1.9 CRD): {} pod(s), one per node. Data: {}.",
            p.nodes,
            storage_note(p)
        ),
        &[doc],
    )
}

fn volcano_job(p: &PlanView) -> Result<String> {
    // Volcano's pytorch plugin sets MASTER_ADDR, MASTER_PORT, WORLD_SIZE and RANK (the pod's
    // index) for tasks `master` and `worker` (volcano v1.15.1
    // pkg/controllers/job/plugins/distributed-framework/pytorch/pytorch.go).
    let cmd = format!("NODE_RANK=\"$RANK\" bash {BUNDLE_MOUNT}/launch.sh");
    let template = pod_template(p, "trainer", &cmd);
    let mut tasks = vec![json!({
        "name": "master", "replicas": 1, "template": template.clone(),
        "policies": [{ "event": "TaskCompleted", "action": "CompleteJob" }],
    })];
    if p.nodes > 1 {
        tasks.push(json!({ "name": "worker", "replicas": p.nodes - 1, "template": template }));
    }
    let doc = json!({
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": { "name": p.slug() },
        "spec": {
            // Gang scheduling: no pod starts until all nodes' pods can.
            "minAvailable": p.nodes,
            "schedulerName": "volcano",
            "plugins": { "pytorch": ["--master=master", "--worker=worker", "--port=23456"], "svc": [] },
            "policies": [{ "event": "PodEvicted", "action": "RestartJob" }],
            "maxRetry": 3,
            "tasks": tasks,
        }
    });
    yaml(
        p,
        &format!("Volcano Job, gang-scheduled (minAvailable {}): all nodes start together or not at all.", p.nodes),
        &[doc],
    )
}

fn storage_note(p: &PlanView) -> String {
    match p.train.as_ref().and_then(|t| t.storage.as_ref()) {
        Some(st) => format!(
            "{} ({}, {:.0} GiB) mounted at {DATA_MOUNT} through a PVC you create for it",
            st.name, st.id, st.capacity_gib
        ),
        None => "no storage class chosen by the plan".into(),
    }
}

fn serving(p: &PlanView) -> Result<String> {
    let s = p.serve.as_ref().unwrap_or_else(|| unreachable!());
    let slug = p.slug();
    let labels = json!({ "app": slug });
    let (vols, mounts) = volumes(p);
    let deployment = json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": { "name": slug },
        "spec": {
            "replicas": s.replicas,
            "selector": { "matchLabels": labels },
            "template": {
                "metadata": { "labels": labels },
                "spec": {
                    "containers": [{
                        "name": "vllm",
                        "image": "REPLACE: a vLLM image for this chip (vllm/vllm-openai on NVIDIA)",
                        "command": ["bash", format!("{BUNDLE_MOUNT}/serve-vllm.sh")],
                        "env": [{ "name": "MODEL", "value": format!("REPLACE: HF repo id or path of {}", p.model) }],
                        "ports": [{ "containerPort": serve::VLLM_PORT }],
                        "resources": { "limits": limits(p, s.tp) },
                        "volumeMounts": mounts,
                    }],
                    "volumes": vols,
                }
            }
        }
    });
    let service = json!({
        "apiVersion": "v1", "kind": "Service", "metadata": { "name": slug },
        "spec": { "selector": labels, "ports": [{ "port": 80, "targetPort": serve::VLLM_PORT }] }
    });
    let floor = s.replicas_for_rate.max(s.min_replicas).min(s.replicas);
    let hpa = json!({
        "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": { "name": slug },
        "spec": {
            "scaleTargetRef": { "apiVersion": "apps/v1", "kind": "Deployment", "name": slug },
            "minReplicas": floor,
            "maxReplicas": s.replicas,
            "metrics": hpa_metrics(s),
        }
    });
    yaml(
        p,
        &format!(
            "Serving sketch: Deployment of {} replica(s) × TP {} (the plan's peak), Service, and an HPA between the rate's {} and the peak's {} replicas on vLLM's queue (vllm:num_requests_waiting, average 1 per pod){} (needs a Prometheus metrics adapter). The batch cap ({} sequences, --max-num-seqs) is never a target: running requests cannot exceed it, so an HPA aimed at it could only scale in.",
            s.replicas, s.tp, floor, s.replicas,
            running_target(s).map_or(String::new(), |t| format!(" and running requests (vllm:num_requests_running, {t} per pod: the plan's peak load by Little's law)")),
            s.batch_per_replica
        ),
        &[deployment, service, hpa],
    )
}

/// The running-requests target per pod: the requests in slots at the plan's peak load, rounded
/// up, and always below the batch cap (a target at the cap can never be exceeded, so the HPA
/// could only scale in: audit r7 #6). `None` when the plan has no load or the cap is 1.
fn running_target(s: &ServeView) -> Option<u64> {
    let n = s.running_at_peak?.ceil().max(1.0) as u64;
    (s.batch_per_replica > 1).then(|| n.min(s.batch_per_replica - 1))
}

/// The HPA's metrics: the queue (vLLM `vllm:num_requests_waiting`, an average of 1 waiting
/// request per pod: the plan's advice scales on a queue that stays above 0), and where the plan
/// has a load, running requests at its peak load per replica (below the batch cap). The HPA
/// takes the larger of the replica counts the metrics ask for.
fn hpa_metrics(s: &ServeView) -> Value {
    let pods = |metric: &str, value: String| {
        json!({ "type": "Pods", "pods": {
            "metric": { "name": metric },
            "target": { "type": "AverageValue", "averageValue": value } } })
    };
    let mut m = vec![pods("vllm:num_requests_waiting", "1".into())];
    if let Some(t) = running_target(s) {
        m.push(pods("vllm:num_requests_running", t.to_string()));
    }
    Value::Array(m)
}
