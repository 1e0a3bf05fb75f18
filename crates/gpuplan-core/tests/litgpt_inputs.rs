//! The `litgpt` framework profile on every model preset and random job shapes: estimates never
//! panic, every number is finite and non-negative, the peak covers the resident states, and a
//! refusal names a field.

use gpuplan_core::constants::Tunables;
use gpuplan_core::hardware::{find_gpu, ClusterSpec, InterLink};
use gpuplan_core::job::estimate_training;
use gpuplan_core::model::presets;
use gpuplan_core::units::Bandwidth;
use gpuplan_core::workload::{
    Framework, LoraConfig, Precision, Recompute, TrainTask, TrainingSetup,
};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn litgpt_profile_stays_finite(
        model in 0usize..1000,
        task in prop_oneof![Just(TrainTask::Lora), Just(TrainTask::Qlora), Just(TrainTask::FullFinetune), Just(TrainTask::Pretrain)],
        precision in prop_oneof![Just(Precision::PureBf16), Just(Precision::AmpBf16), Just(Precision::Fp32)],
        mb in 1u64..9,
        seq in prop_oneof![Just(1u64), Just(2), Just(127), Just(128), Just(129), Just(512), Just(4096)],
        recompute in prop_oneof![Just(Recompute::None), Just(Recompute::Full), Just(Recompute::Selective)],
        rms in prop_oneof![Just(None), Just(Some(true)), Just(Some(false))],
        held in prop_oneof![Just(None), Just(Some(false))],
        targets in prop_oneof![Just("all-linear"), Just("q_proj,v_proj"), Just("q_proj,k_proj,v_proj"), Just("o_proj")],
    ) {
        let all = presets().map_err(|e| TestCaseError::fail(e.to_string()))?;
        let m = &all[model % all.len()].model;
        let c = ClusterSpec::new(find_gpu("H100-SXM-80G").unwrap(), 8, 1, InterLink::Rdma, Bandwidth::from_gbit_per_s(400.0)).unwrap();
        let mut setup = TrainingSetup {
            task,
            framework: Framework::LitGpt,
            precision,
            micro_batch: mb,
            seq_len: seq,
            recompute,
            rmsnorm_fp32: rms,
            keeps_previous_graph: held,
            tokens: Some(1e9),
            lora: LoraConfig { rank: 16, targets: targets.split(',').map(String::from).collect(), base: None, ..Default::default() },
            ..Default::default()
        };
        if setup.lora.validate_for(m).is_err() {
            return Ok(()); // a target the model lacks is refused elsewhere (tested)
        }
        setup.lora = setup.lora.resolved_for(m);
        match estimate_training(m, &setup, &c, &Tunables::default()) {
            Ok(e) => {
                let mem = &e.memory;
                for (what, x) in [("peak", mem.peak_allocated.0), ("total", mem.device_total.0), ("saved", mem.saved_after_forward.0)] {
                    prop_assert!(x.is_finite() && x >= 0.0, "{}: {what} {x}", m.name);
                }
                for p in &mem.timeline.phases {
                    prop_assert!(p.total.0.is_finite() && p.total.0 >= 0.0, "{}: {}", m.name, p.phase);
                    prop_assert!(p.total.0 <= mem.peak_allocated.0 * (1.0 + 1e-12), "{}: {} above the peak", m.name, p.phase);
                }
                if let Some(t) = e.totals {
                    prop_assert!(t.gpu_hours.is_finite() && t.gpu_hours >= 0.0);
                }
            }
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }
}
