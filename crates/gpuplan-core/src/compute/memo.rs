//! [`micro_batch_compute`] remembered for one model: the planner's time passes time the same
//! configuration on many clusters (other links, other node counts, other instance types of the
//! same chip), and a micro-batch's compute reads none of what differs between them.
//!
//! Exact by construction: `micro_batch_compute(b, t, setup, r)` is a pure function of its
//! arguments (no global or thread state); `b` is `param_breakdown(t)` and `t` is the memo's own
//! model, so an entry is reused only for bit-identical chip rates and an equal setup: every
//! field equal, the gradient accumulation too unless the rates cast nothing to FP8. That field is
//! read only by the FP8 weight casts (`compute::fp8_casts`: `weight = 1 / grad_accum` under
//! Megatron-Core), whose bytes are `cast_bytes` × …, 0 without FP8 casts; so under
//! `cast_bytes == 0` a configuration's compute is the same at every data-parallel degree of the
//! same micro-batch (tested: `grad_accum_is_read_only_by_fp8_casts`). The reference search
//! (`SearchMode::Exhaustive`) uses no memo; tests/search_equivalence.rs compares the two, and
//! `memo_is_the_function` below compares entries.

use super::{micro_batch_compute, ChipRates, ComputeParts};
use crate::model::{ModelSpec, ParamBreakdown, TransformerSpec};
use crate::workload::TrainingSetup;
use std::sync::Mutex;

/// One remembered computation: its inputs in full and its answer.
type Entry = (TrainingSetup, ChipRates, ComputeParts);

/// Remembered micro-batch compute times of one model (shared by the search's threads).
pub struct ComputeMemo<'a> {
    /// The model every entry was computed for; any other model bypasses the memo.
    t: &'a TransformerSpec,
    /// `t`'s parameter breakdown (`param_breakdown_shared` of a model with this `t`), computed
    /// once: the step times of this model read it instead of looking it up per step.
    b: ParamBreakdown,
    /// Entries by a hash of the fields that vary in a search (the hash narrows; the full
    /// comparison decides, so a field added to the setup later is never ignored).
    map: Mutex<rustc_hash::FxHashMap<u64, Vec<Entry>>>,
}

impl<'a> ComputeMemo<'a> {
    /// The remembered entries without the model they were computed for, to be freed apart
    /// (`plan::train::drop_aside`: thousands of setups with their strings).
    pub fn into_entries(self) -> impl Send + 'static {
        self.map.into_inner().unwrap_or_else(|e| e.into_inner())
    }

    pub fn new(t: &'a TransformerSpec) -> Self {
        ComputeMemo {
            t,
            b: crate::model::transformer_params(t),
            map: Mutex::default(),
        }
    }

    /// The parameter breakdown of `m` when `m`'s transformer is the memo's own (the same
    /// object, borrowed for the memo's life, so it cannot have changed); `None` otherwise.
    pub fn breakdown_of(&self, m: &ModelSpec) -> Option<&ParamBreakdown> {
        m.transformer()
            .filter(|t| std::ptr::eq(*t, self.t))
            .map(|_| &self.b)
    }

    /// `micro_batch_compute(b, t, setup, r)`, from the memo when these inputs were seen before.
    pub fn get(
        &self,
        b: &ParamBreakdown,
        t: &TransformerSpec,
        setup: &TrainingSetup,
        r: &ChipRates,
    ) -> ComputeParts {
        if !std::ptr::eq(t, self.t) {
            return micro_batch_compute(b, t, setup, r);
        }
        let key = narrow_key(setup, r);
        let found = self.map.lock().ok().and_then(|map| {
            map.get(&key)?
                .iter()
                .find(|(s, rates, _)| same_rates(rates, r) && same_setup(s, setup, r))
                .map(|e| e.2)
        });
        if let Some(parts) = found {
            return parts;
        }
        let parts = micro_batch_compute(b, t, setup, r);
        if let Ok(mut map) = self.map.lock() {
            map.entry(key).or_default().push((setup.clone(), *r, parts));
        }
        parts
    }
}

/// A hash of what differs between the configurations and chips of one search.
fn narrow_key(s: &TrainingSetup, r: &ChipRates) -> u64 {
    use std::hash::{Hash, Hasher};
    let p = &s.parallel;
    let mut h = rustc_hash::FxHasher::default();
    (p.tp, p.pp, p.cp, p.virtual_stages, p.ep, p.zero).hash(&mut h);
    (
        s.recompute as u8,
        s.micro_batch,
        grad_accum_read(s, r),
        s.seq_len,
    )
        .hash(&mut h);
    (r.gemm.0.to_bits(), r.attention.0.to_bits()).hash(&mut h);
    h.finish()
}

/// The gradient accumulation as `micro_batch_compute` reads it: only through FP8 casts.
fn grad_accum_read(s: &TrainingSetup, r: &ChipRates) -> Option<u64> {
    (r.cast_bytes != 0.0).then_some(s.grad_accum)
}

/// `a == b` on every field but the gradient accumulation. The pattern names every field (no
/// `..`): a field added to the setup does not compile until it is listed here.
macro_rules! equal_but_grad_accum {
    ($a:expr, $b:expr, [$($f:ident),* $(,)?]) => {{
        let TrainingSetup { grad_accum: _, $($f: _),* } = $a;
        true $(&& $a.$f == $b.$f)*
    }};
}

/// `a == b`, the gradient accumulation compared only where it is read ([`grad_accum_read`]).
fn same_setup(a: &TrainingSetup, b: &TrainingSetup, r: &ChipRates) -> bool {
    grad_accum_read(a, r) == grad_accum_read(b, r)
        && equal_but_grad_accum!(
            a,
            b,
            [
                parallel,
                micro_batch,
                seq_len,
                recompute,
                task,
                precision,
                optimizer,
                attention,
                framework,
                attention_span,
                lora,
                optimizer_in_backward,
                chunked_loss,
                bf16_chunked_loss,
                autocast,
                optimizer_foreach,
                optimizer_foreach_buffers,
                adapter_dtype,
                bnb_saves_inputs,
                bnb_quant_state_replicated,
                quantized_lm_head,
                keeps_previous_graph,
                rmsnorm_fp32,
                gradient_as_bucket_view,
                persistent_grads,
                nccl_version,
                deepspeed,
                activation_offload,
                paged_optimizer,
                tokens,
                samples,
                epochs,
                bytes_per_sample,
                dataset_bytes,
                compiled,
                compiled_loss,
                fp8_scaling,
                fp8_kernels,
                fp8_params,
                main_grads,
                optimizer_dtype,
                cross_entropy_loss_fusion,
                gradient_accumulation_fusion,
                fused_cross_entropy,
                fused_classifier,
                logit_metrics,
                unfused_score_bias,
            ]
        )
}

/// Every field of the rates, bit for bit (so −0.0 and 0.0, or two NaNs, are told apart or
/// missed, never confused). The pattern names every field, so a field added to [`ChipRates`]
/// does not compile until it is compared here too (as `same_setup` does for the setup).
fn same_rates(a: &ChipRates, b: &ChipRates) -> bool {
    let bits = |r: &ChipRates| {
        let ChipRates {
            gemm,
            attention,
            memory,
            sms,
            act_bytes,
            eager_elementwise,
            cast_bytes,
            autotuned,
        } = *r;
        (
            gemm.0.to_bits(),
            attention.0.to_bits(),
            memory.map(|m| m.0.to_bits()),
            sms,
            act_bytes.to_bits(),
            eager_elementwise,
            cast_bytes.to_bits(),
            autotuned,
        )
    };
    bits(a) == bits(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{find_preset, param_breakdown_shared};
    use crate::workload::{Framework, Precision, Recompute};

    fn rates(gemm: f64) -> ChipRates {
        ChipRates {
            gemm: crate::units::FlopRate(gemm),
            attention: crate::units::FlopRate(3e14),
            memory: Some(crate::units::Bandwidth(2.5e12)),
            sms: Some(132),
            act_bytes: 2.0,
            eager_elementwise: false,
            cast_bytes: 0.0,
            autotuned: false,
        }
    }

    /// Every answer of the memo, first computed or remembered, is the function's answer for
    /// those inputs, bit for bit, over setups that share the narrow key and ones that do not.
    #[test]
    fn memo_is_the_function() {
        let m = find_preset("Llama-2-13B").expect("preset").model.clone();
        let t = m.transformer().expect("transformer");
        let b = param_breakdown_shared(&m);
        let memo = ComputeMemo::new(t);
        let mut setups = Vec::new();
        for (tp, mb, ga) in [(1, 1, 8), (2, 1, 8), (2, 2, 4), (8, 4, 1), (2, 1, 16)] {
            for precision in [Precision::AmpBf16, Precision::Fp8] {
                let mut s = TrainingSetup {
                    seq_len: 4096,
                    micro_batch: mb,
                    grad_accum: ga,
                    precision,
                    framework: Framework::Megatron,
                    recompute: Recompute::Selective,
                    ..Default::default()
                };
                s.parallel.tp = tp;
                setups.push(s.clone());
                s.framework = Framework::HuggingFace;
                setups.push(s);
            }
        }
        for round in 0..2 {
            for s in &setups {
                let fp32 = ChipRates {
                    act_bytes: 4.0,
                    ..rates(6e14)
                };
                for r in [rates(6e14), rates(4e14), fp32] {
                    let want = micro_batch_compute(&b, t, s, &r);
                    let got = memo.get(&b, t, s, &r);
                    let bits = |c: &ComputeParts| {
                        [c.gemm_s, c.attention_s, c.elementwise_s, c.layer_s].map(f64::to_bits)
                    };
                    assert_eq!(bits(&got), bits(&want), "round {round}: {s:?} {r:?}");
                }
            }
        }
        // A copy of the model (another address) is computed, not looked up.
        let other = t.clone();
        let s = &setups[0];
        let want = micro_batch_compute(&b, &other, s, &rates(6e14));
        assert_eq!(memo.get(&b, &other, s, &rates(6e14)), want);
    }

    /// The memo's breakdown is the one every step time would look up (`param_breakdown_shared`)
    /// for its own model object, over dense, MoE, encoder-decoder and GPT-2 models; a copy
    /// of the model, or another model, gets none (the step looks it up as before).
    #[test]
    fn breakdown_is_the_shared_breakdown_of_its_own_model() {
        let names = [
            "Llama-2-13B",
            "Mixtral-8x7B",
            "DeepSeek-V3",
            "T5-base",
            "GPT-2",
        ];
        for name in names {
            let m = find_preset(name).expect("preset").model.clone();
            let memo = ComputeMemo::new(m.transformer().expect("transformer"));
            let b = memo.breakdown_of(&m).expect("its own model");
            assert_eq!(b, &*param_breakdown_shared(&m), "{name}");
            let copy = m.clone();
            assert!(memo.breakdown_of(&copy).is_none(), "{name}: a copy");
            let other = find_preset("Qwen2.5-7B").expect("preset").model.clone();
            assert!(memo.breakdown_of(&other).is_none(), "{name}: another model");
        }
    }

    /// The premise of ignoring the gradient accumulation without FP8 casts: over dense, MoE,
    /// encoder-decoder and GPT-2 models, every framework, task, precision, recompute and TP/PP/EP
    /// mix, the compute at 1 and at 13 micro-batches per step is the same bit for bit when the
    /// rates cast nothing; with casts under Megatron-Core it differs (the test can fail).
    #[test]
    fn grad_accum_is_read_only_by_fp8_casts() {
        use crate::workload::TrainTask;
        let frameworks = [
            Framework::Megatron,
            Framework::HuggingFace,
            Framework::LitGpt,
        ];
        let tasks = [TrainTask::Pretrain, TrainTask::Lora, TrainTask::Qlora];
        let recomputes = [Recompute::None, Recompute::Full, Recompute::SelectiveOp];
        let mut compared = 0;
        for name in [
            "Llama-2-13B",
            "Mixtral-8x7B",
            "DeepSeek-V3",
            "T5-base",
            "GPT-2",
        ] {
            let m = find_preset(name).expect("preset").model.clone();
            let t = m.transformer().expect("transformer");
            let b = param_breakdown_shared(&m);
            for (&framework, &task, &recompute) in frameworks
                .iter()
                .flat_map(|f| tasks.iter().map(move |t| (f, t)))
                .flat_map(|(f, t)| recomputes.iter().map(move |r| (f, t, r)))
            {
                for (precision, tp, pp, ep) in [
                    (Precision::AmpBf16, 1, 1, 1),
                    (Precision::Fp8, 2, 2, 1),
                    (Precision::PureBf16, 4, 1, 2),
                ] {
                    let mut s = TrainingSetup {
                        task,
                        precision,
                        framework,
                        recompute,
                        micro_batch: 2,
                        seq_len: 1024,
                        ..Default::default()
                    };
                    (s.parallel.tp, s.parallel.pp, s.parallel.ep) = (tp, pp, ep);
                    let at = |ga: u64, r: &ChipRates| {
                        let s = TrainingSetup {
                            grad_accum: ga,
                            ..s.clone()
                        };
                        micro_batch_compute(&b, t, &s, r)
                    };
                    let r = rates(6e14);
                    assert_eq!(at(1, &r), at(13, &r), "{name} {s:?}");
                    assert!(same_setup(
                        &TrainingSetup {
                            grad_accum: 13,
                            ..s.clone()
                        },
                        &s,
                        &r
                    ));
                    compared += 1;
                }
            }
        }
        assert_eq!(compared, 5 * 27 * 3);
        // With FP8 casts the weight casts are amortised over the step's micro-batches.
        let m = find_preset("Llama-2-13B").expect("preset").model.clone();
        let t = m.transformer().expect("transformer");
        let b = param_breakdown_shared(&m);
        let s = TrainingSetup {
            precision: Precision::Fp8,
            framework: Framework::Megatron,
            ..Default::default()
        };
        let cast = ChipRates {
            cast_bytes: 4.0,
            ..rates(6e14)
        };
        let s13 = TrainingSetup {
            grad_accum: 13,
            ..s.clone()
        };
        assert_ne!(
            micro_batch_compute(&b, t, &s, &cast),
            micro_batch_compute(&b, t, &s13, &cast)
        );
        assert!(!same_setup(&s13, &s, &cast));
    }
}
