//! SkyPilot task YAML (validated against SkyPilot 0.14.1's task schema, vendored): the plan's
//! nodes and accelerators on Kubernetes (`infra: k8s`); training runs launch.sh on every node
//! with SkyPilot's node rank and IPs, serving is a SkyServe service with the plan's replicas.

use super::view::PlanView;
use super::{k8s, serve, yaml, File};
use anyhow::Result;
use serde_json::{json, Value};

/// SkyPilot's accelerator name for the plan's chip (its catalog spelling for the common NVIDIA
/// parts; otherwise the chip id upper-cased, which a Kubernetes cluster must label the same way).
pub fn accelerator(p: &PlanView) -> String {
    let id = p.gpu_id.as_str();
    let name = match id {
        "a100-80g" => "A100-80GB",
        "a100-40g" | "a100" => "A100",
        _ if id.starts_with("h100") => "H100",
        _ if id.starts_with("v100") => "V100",
        _ => return id.to_ascii_uppercase(),
    };
    name.to_string()
}

pub fn file(p: &PlanView) -> Result<File> {
    let per_task = match &p.serve {
        Some(s) => s.tp,
        None => p.gpus_per_node,
    };
    let mut resources = json!({
        "infra": "k8s",
        "accelerators": format!("{}:{}", accelerator(p), per_task),
        "use_spot": p.billing.as_deref() == Some("spot"),
    });
    let env: Value = json!({ "MODEL": null });
    let doc = match &p.serve {
        Some(s) => {
            resources["ports"] = json!(serve::VLLM_PORT);
            json!({
                "name": p.slug(),
                "resources": resources,
                "envs": env,
                "workdir": ".",
                "service": {
                    "readiness_probe": "/health",
                    "replica_policy": {
                        "min_replicas": s.replicas_for_rate.max(s.min_replicas).min(s.replicas),
                        "max_replicas": s.replicas,
                        "target_qps_per_replica": s.rps_per_replica,
                    },
                },
                "run": "bash serve-vllm.sh",
            })
        }
        None => json!({
            "name": p.slug(),
            "num_nodes": p.nodes,
            "resources": resources,
            "envs": { "TRAIN_SCRIPT": null },
            "workdir": ".",
            "run": "MASTER_ADDR=$(echo \"$SKYPILOT_NODE_IPS\" | head -n1) NODE_RANK=$SKYPILOT_NODE_RANK bash launch.sh\n",
        }),
    };
    let ascend = if p.ascend() {
        " SkyPilot's catalog has no Ascend NPUs: the Kubernetes cluster must expose them under this accelerator name."
    } else {
        ""
    };
    Ok(File::new(
        "skypilot.yaml",
        yaml(
            p,
            &format!(
                "SkyPilot task: `sky launch skypilot.yaml` (serving: `sky serve up`), {} GPU(s) per task of {} on Kubernetes ({}).{ascend}",
                per_task,
                accelerator(p),
                k8s::accelerator_resource(p)
            ),
            &[doc],
        )?,
    ))
}
