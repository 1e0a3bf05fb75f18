//! The work of a token-choice MoE layer outside its expert GEMMs (issue p-r5-moe-time): the
//! router and the token dispatcher's permutations. The expert GEMMs themselves run at their
//! routed rows in [`super::micro_batch_compute`]; the expert all-to-all is
//! `train::step::ep_phase`.
//!
//! Source: Megatron-LM @d98e8a64 megatron/core/transformer/moe/ — `router.py` (`TopKRouter`:
//! `gating` is a plain `torch.nn.functional.linear` of the hidden states with the E × h router
//! weight, not a Transformer Engine module, so it stays in 16 bit under FP8; the top-k softmax
//! and the aux loss run on the tokens × E scores) and `token_dispatcher.py`
//! (`MoEAlltoAllTokenDispatcher`: `dispatch_preprocess` "Permutation 1: input to AlltoAll
//! input" (`permute`), `dispatch_postprocess` "Permutation 2: Sort tokens by local expert"
//! (`sort_chunks_by_idxs`, only `if self.num_local_experts > 1`), `combine_preprocess`
//! "Unpermutation 2: Unsort tokens by local expert" (`sort_chunks_by_idxs` again) and
//! `combine_postprocess` "Unpermutation 1: AlltoAll output to output" (`unpermute`, which also
//! weights and sums the k copies of each token)). Each of these gathers or scatters whole
//! hidden-state rows, so it is bandwidth-bound: the fused versions (`moe_permute_fusion`, TE's
//! `moe_permute` / `moe_sort_chunks_by_index` / `moe_unpermute`) still read and write every
//! row once. Their backward is the inverse permutation, with the same traffic.

use super::{linear_seconds, sixteen_bit, ChipRates};
use crate::model::{MoeSpec, TransformerSpec};
use crate::workload::{Framework, TrainingSetup};

/// Bytes per token and expert of the fused top-k softmax over the router scores and its
/// backward (Megatron's `moe_router_fusion`, TE `fused_topk_with_score_function`): forward reads
/// the fp32 logits (4 B) and writes the fp32 probabilities (4 B) and the boolean routing map
/// (1 B); backward reads the probabilities' gradient and the saved probabilities and writes the
/// logits' gradient (4 B each): 9 + 12 = 21 B. The aux-loss terms (per-expert sums) are left out.
pub const ROUTER_SCORE_BYTES: f64 = 21.0;

/// Tokens one device routes per micro-batch: under tensor parallelism with sequence parallelism
/// (which Megatron-Core requires for MoE with TP) each TP rank routes its own sequence shard.
pub fn routed_tokens(setup: &TrainingSetup, tokens: u64) -> u64 {
    let tp = setup.parallel.tp.max(1);
    if tp > 1 && setup.parallel.sequence_parallel {
        tokens.div_ceil(tp)
    } else {
        tokens
    }
}

/// Hidden-state rows (per routed token) that the dispatcher's permutations read plus write in
/// one forward pass: `permute` reads the token once and writes its k copies; `unpermute` reads
/// the k copies and writes one; Megatron's sort and unsort by local expert (expert parallelism
/// with more than one local expert) each read and write the k copies.
pub fn dispatch_rows_fwd(moe: &MoeSpec, setup: &TrainingSetup) -> f64 {
    let k = moe.experts_per_token as f64;
    let p = setup.parallel;
    if p.moe_dispatcher.gathers() {
        return allgather_rows_fwd(k, p.tp.max(1) as f64, p.ep.max(1) as f64);
    }
    let local_experts = moe.experts.div_ceil(p.ep.max(1));
    let sorts = setup.framework == Framework::Megatron && p.ep > 1 && local_experts > 1;
    let permute = 2.0 * (1.0 + k);
    permute + if sorts { 2.0 * 2.0 * k } else { 0.0 }
}

/// [`dispatch_rows_fwd`] under Megatron-Core's `allgather` dispatcher, as ModelLink runs it
/// (MindSpeed @2b0edd2 mindspeed/core/transformer/moe/token_dispatcher.py, which replaces
/// `MoEAllGatherTokenDispatcher.token_permutation`/`token_unpermutation` of Megatron-LM
/// core_v0.6.0 under `--moe-permutation-async-comm`; Megatron's own has the same row passes).
/// A rank gathers its TP × EP group's `tp·ep` shards and keeps the `L = tp·ep·k/ep = tp·k` copies
/// per own token routed to its local experts (balanced routing; the experts' weights are split
/// over TP, so each TP rank runs every copy of its group). Per copy: `global_hidden_states
/// [global_local_map]` reads and writes it (2), `local_hidden_states[indices]` the same (2);
/// unpermutation writes zeros (1), `index_put_` reads and writes (2), the score product reads and
/// writes (2), and the accumulating `index_put_` into the gathered shape reads the copy and reads
/// and writes its row (3): 12 L, plus the `torch.zeros` of the `tp·ep` gathered rows.
fn allgather_rows_fwd(k: f64, tp: f64, ep: f64) -> f64 {
    12.0 * tp * k + tp * ep
}

/// Seconds of one MoE layer's router and token permutations for one micro-batch on one device:
/// (GEMM part, bandwidth-bound part). `tokens`: the device's tokens of the micro-batch (after
/// context parallelism); `fwd_passes`: 1, or 2 when backward recomputes the forward.
pub fn layer_seconds(
    t: &TransformerSpec,
    moe: &MoeSpec,
    setup: &TrainingSetup,
    tokens: u64,
    fwd_passes: f64,
    r: &ChipRates,
) -> (f64, f64) {
    let routed = routed_tokens(setup, tokens);
    let frozen = setup.task.is_peft();
    let gemm = linear_seconds(routed, t.hidden, moe.experts, 1, frozen, &sixteen_bit(r));
    let act = r.act_bytes.max(2.0);
    let rows = dispatch_rows_fwd(moe, setup) * (fwd_passes + 1.0);
    let bytes =
        routed as f64 * (rows * t.hidden as f64 * act + ROUTER_SCORE_BYTES * moe.experts as f64);
    let memory = r.memory.map_or(0.0, |bw| bytes / bw.0.max(1.0));
    (gemm, memory)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::{Bandwidth, FlopRate};

    fn qwen3_30b() -> (TransformerSpec, MoeSpec) {
        let m = crate::model::find_preset("Qwen3-30B-A3B")
            .unwrap()
            .model
            .clone();
        let t = m.transformer().unwrap().clone();
        let moe = t.moe.unwrap();
        (t, moe)
    }

    /// Qwen3-30B-A3B (top-8 of 128): permute reads 1 row and writes 8, unpermute the reverse
    /// (18 rows); Megatron's sort and unsort by local expert add 2 × 16 under EP 8 (16 local
    /// experts), none without EP or outside Megatron.
    #[test]
    fn dispatcher_rows_follow_the_megatron_passes() {
        let (_, moe) = qwen3_30b();
        let mut s = TrainingSetup {
            framework: Framework::Megatron,
            ..TrainingSetup::default()
        };
        s.parallel.ep = 8;
        assert_eq!(dispatch_rows_fwd(&moe, &s), 50.0);
        s.parallel.ep = 1;
        assert_eq!(dispatch_rows_fwd(&moe, &s), 18.0);
        s.parallel.ep = 8;
        s.framework = Framework::HuggingFace;
        assert_eq!(dispatch_rows_fwd(&moe, &s), 18.0);
    }

    /// Grok-1 in ModelLink (TP 4, EP 2, top-2): each rank keeps 8 copies per own token from the
    /// 8 gathered shards, 12 row passes each, and zeroes the 8 gathered rows.
    #[test]
    fn allgather_rows_count_the_gathered_copies() {
        let (_, moe) = qwen3_30b();
        let mut s = TrainingSetup::default();
        s.parallel.tp = 4;
        s.parallel.ep = 2;
        s.parallel.sequence_parallel = true;
        s.parallel.moe_dispatcher = crate::workload::MoeDispatcher::AllGather;
        let moe = MoeSpec {
            experts_per_token: 2,
            ..moe
        };
        assert_eq!(dispatch_rows_fwd(&moe, &s), 12.0 * 8.0 + 8.0);
    }

    /// The permutations' bytes at the bandwidth: 50 rows forward and again backward, 2 B per
    /// element of h = 2048, plus the 21 B per expert of the scores; TP 2 with sequence
    /// parallelism routes half the tokens.
    #[test]
    fn permutation_traffic_is_bandwidth_bound() {
        let (t, moe) = qwen3_30b();
        let r = ChipRates {
            gemm: FlopRate(1e15),
            attention: FlopRate(1e15),
            memory: Some(Bandwidth(2e12)),
            sms: None,
            act_bytes: 1.0,
            eager_elementwise: false,
            cast_bytes: 4.0,
            autotuned: false,
        };
        let mut s = TrainingSetup {
            framework: Framework::Megatron,
            ..TrainingSetup::default()
        };
        s.parallel.ep = 8;
        let (gemm, mem) = layer_seconds(&t, &moe, &s, 8192, 1.0, &r);
        let want = 8192.0 * (100.0 * 2048.0 * 2.0 + 21.0 * 128.0) / 2e12;
        assert!((mem - want).abs() / want < 1e-12, "{mem} {want}");
        assert!(gemm > 0.0);
        s.parallel.tp = 2;
        s.parallel.sequence_parallel = true;
        let (_, half) = layer_seconds(&t, &moe, &s, 8192, 1.0, &r);
        assert!((half - want / 2.0).abs() / want < 1e-12);
    }
}
