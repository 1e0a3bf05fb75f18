//! Issue 10, stop 42: the element-wise bytes PEFT's LoRA forward moves around each adapter's
//! GEMMs (`compute::peft_adapter_pass`) must be what PEFT's layer runs, as
//! tools/measure_lora_traffic.py listed it op by op (validation/lora-traffic-measured.json:
//! PEFT's default fp32 adapters on a bf16 linear under bf16 autocast, dropout 0.05).

use gpuplan_core::compute::{peft_adapter_pass, AdapterPass};
use gpuplan_core::workload::{AdapterDtype, Framework, TrainTask, TrainingSetup};
use serde_json::Value;

fn measured() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../validation/lora-traffic-measured.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn lora() -> TrainingSetup {
    let mut s = TrainingSetup {
        task: TrainTask::Lora,
        adapter_dtype: AdapterDtype::Fp32,
        ..TrainingSetup::default()
    };
    s.lora.dropout = 0.05;
    s
}

#[test]
fn peft_pass_matches_the_measured_ops() {
    let m = measured();
    let pass = peft_adapter_pass(&lora(), 2.0);
    for phase in ["forward", "backward"] {
        let row = &m["measured_per_pass"][phase];
        assert_eq!(
            pass.per_in,
            row["per_in"].as_f64().unwrap(),
            "{phase} per_in"
        );
        assert_eq!(
            pass.per_out,
            row["per_out"].as_f64().unwrap(),
            "{phase} per_out"
        );
    }
}

#[test]
fn bf16_adapters_without_dropout_pay_the_scaling_alone() {
    let mut s = lora();
    s.adapter_dtype = AdapterDtype::Bf16;
    s.lora.dropout = 0.0;
    let pass = peft_adapter_pass(&s, 2.0);
    assert_eq!(
        pass,
        AdapterPass {
            per_in: 0.0,
            per_out: 4.0
        }
    );
    s.lora.dropout = 0.05;
    assert_eq!(peft_adapter_pass(&s, 2.0).per_in, 5.0);
}

#[test]
fn other_adapters_keep_their_gemms_and_joining_add() {
    for f in [Framework::Megatron, Framework::LitGpt] {
        let s = TrainingSetup {
            framework: f,
            ..lora()
        };
        assert_eq!(peft_adapter_pass(&s, 2.0), AdapterPass::default(), "{f:?}");
    }
    let compiled = TrainingSetup {
        compiled: true,
        ..lora()
    };
    assert_eq!(peft_adapter_pass(&compiled, 2.0), AdapterPass::default());
    // fp32 training: activations as wide as the adapters, no cast either way, the dropout and the
    // scaling at 4 B.
    assert_eq!(
        peft_adapter_pass(&lora(), 4.0),
        AdapterPass {
            per_in: 9.0,
            per_out: 8.0
        }
    );
    let qlora = TrainingSetup {
        task: TrainTask::Qlora,
        ..lora()
    };
    assert_eq!(peft_adapter_pass(&qlora, 2.0), AdapterPass::default());
}
