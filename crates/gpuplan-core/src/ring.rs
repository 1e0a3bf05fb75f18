//! torch's context-parallel ring attention, one ring round at a time: what each round moves
//! between ranks and through HBM, and how much of the transfer the attention kernel hides.
//!
//! Source: `torch/distributed/tensor/experimental/_attention.py` (read at pytorch @0123248a,
//! later than the torchtitan report's torch 1963fc8 of 2024-12-23; the ring below is the one
//! torchtitan @9dec370 drives through `context_parallel`):
//! - `_ContextParallelOptions`: `convert_to_f32 = True`, `enable_load_balance = True`,
//!   `rotate_method = ALL_GATHER` (torchtitan's `--experimental.context_parallel_rotate_method`
//!   defaults to "allgather" too, torchtitan/config_manager.py @9dec370).
//! - `_templated_ring_attention`: round 0 runs SDPA causally on the rank's two round-robin chunks,
//!   rounds 1‥cp−1 non-causally on half the queries or half the keys (1/cp of the causal work per
//!   round); `_AllGatherRotater` all-gathers every rank's K and V once, at round 0, and round 1
//!   waits for it; `_SDPAMerger` merges each round's output and LSE in fp32.
//! - `_templated_ring_attention_backward`: the K/V all-gather again, fp32 dQ/dK/dV accumulators
//!   (`zeros_like(..., dtype=float32)`), and per round dK/dV sent on to the next rank by an
//!   `ALL_TO_ALL` rotater (`permute_tensor`), waited one round later; the last one after the loop.
//! - SDPA sees K and V after torchtitan's `repeat_kv` (torchtitan/models/llama/model.py @9dec370
//!   lines 201-209): at the full query-head count, so a GQA model's ring moves q_width, not
//!   kv_width.
//! - Under `torch.compile` the ring is traced into the compiled block, and a traced functional
//!   collective is waited at once (`_maybe_wrap_tensor` in torch/distributed/_functional_collectives.py:
//!   `if _are_we_tracing(): return wait_tensor(self)`); Inductor moves waits later only with
//!   `reorder_for_compute_comm_overlap`, off by default (torch/_inductor/config.py; a traced CP
//!   graph shows the pattern: `all_gather_into_tensor` then `wait_tensor` on the next line, in the
//!   Inductor output quoted in pytorch/torchtitan PR #3305). So compiled,
//!   every transfer is exposed; eager, the all-gather hides behind round 0 and each dK/dV send
//!   behind the next round's backward kernel.

/// Bytes per element of one K or V tensor in the ring's forward transfers: bf16 (the
/// mixed-precision compute dtype of the torchtitan runs this models).
const KV_BYTES: f64 = 2.0;
/// Bytes per element of the dK/dV the backward ring sends: fp32 (`convert_to_f32 = True`, the
/// accumulators `zeros_like(..., dtype=float32)` in `_templated_ring_attention_backward`).
const GRAD_BYTES: f64 = 4.0;

/// One layer's ring on one rank for one micro-batch.
#[derive(Clone, Copy, Debug)]
pub struct Ring {
    /// Context-parallel degree (ranks in the ring).
    pub cp: u64,
    /// Elements of the rank's query (= output) tensor: local tokens × SDPA width on the TP rank.
    pub q_elems: f64,
    /// Elements of one of the rank's K or V tensors as SDPA sees them.
    pub kv_elems: f64,
    /// Forward passes of the attention kernel (2 under full or attention-core selective
    /// recompute: [`crate::compute::attention_forward_passes`]).
    pub fwd_passes: f64,
    /// The ring is traced by torch.compile (every collective waited at once).
    pub traced: bool,
}

impl Ring {
    /// Bytes one rank's K and V (bf16) take: what one all-gather contribution is.
    pub fn kv_chunk_bytes(&self) -> f64 {
        2.0 * self.kv_elems * KV_BYTES
    }

    /// Bytes one rank receives per pass from the K/V all-gather: the other cp − 1 chunks.
    pub fn all_gather_bytes(&self) -> f64 {
        (self.cp.max(1) - 1) as f64 * self.kv_chunk_bytes()
    }

    /// Bytes of one backward round's dK/dV send (fp32).
    pub fn dkv_round_bytes(&self) -> f64 {
        2.0 * self.kv_elems * GRAD_BYTES
    }

    /// Bytes one rank receives for one layer: a K/V all-gather per forward pass and one in
    /// backward, and a dK/dV send per backward round (cp of them, the last after the loop).
    pub fn transfer_bytes(&self) -> f64 {
        if self.cp <= 1 {
            return 0.0;
        }
        (self.fwd_passes + 1.0) * self.all_gather_bytes() + self.cp as f64 * self.dkv_round_bytes()
    }

    /// Exposed transfer seconds of one layer (forward passes + backward) at `bw` bytes/s, with
    /// `fwd_kernel_s` the attention kernels of one forward pass (all rounds; the backward's are
    /// `FLASH_BACKWARD_RATIO` × as long). Each round is 1/cp of the pass.
    pub fn exposed_comm_seconds(&self, bw: f64, fwd_kernel_s: f64) -> f64 {
        let cp = self.cp.max(1) as f64;
        if cp <= 1.0 || bw <= 0.0 {
            return 0.0;
        }
        let ag = self.all_gather_bytes() / bw;
        let dkv = self.dkv_round_bytes() / bw;
        if self.traced {
            return self.transfer_bytes() / bw;
        }
        let fwd_round = fwd_kernel_s / cp;
        let bwd_round = crate::compute::FLASH_BACKWARD_RATIO * fwd_round;
        self.fwd_passes * (ag - fwd_round).max(0.0)
            + (ag - bwd_round).max(0.0)
            + (cp - 1.0) * (dkv - bwd_round).max(0.0)
            + dkv
    }

    /// HBM bytes of one layer's ring bookkeeping outside the attention kernel: the K/V copies
    /// fed to the rotater, the fp32 merge of each round's output/LSE (forward, every pass) and
    /// the fp32 dQ/dK/dV accumulation (backward). Per element, from `_attention.py`:
    /// - each pass: `key.contiguous()` / `value.contiguous()` copy the transposed K/V (read 2 +
    ///   write 2 B each) and `torch.cat([key.flatten(), value.flatten()])` builds the send buffer
    ///   (the same again) every round but the last; traced, only the all-gather's one survives.
    /// - forward: round 0 up-casts the output (read 2 + write 4), the last cast back (4 + 2); each
    ///   later round merges `out - sigmoid(lse_b - lse) * (out - out_b)`: eager `out.to(f32)`
    ///   (2 + 4), the difference (8 + 4), the product (4 + 4), the update (8 + 4) = 38 B, and on
    ///   the rounds that touch half the queries (`partial`, half of them on average) half of that
    ///   plus a `torch.cat` of the whole fp32 output (8): 32.5 B on average; fused by Inductor:
    ///   read out (4) and the block (2), write out (4) = 10 B.
    /// - backward: fp32 zeros for dQ, dK, dV (4 each), each round `grad += grad_` (4 + 2 + 4 =
    ///   10; on partial rounds half of it plus a `torch.cat` (8): 11.5 on average) for dQ, and for
    ///   dK/dV the same plus the fp32 send buffer's `torch.cat` (4 + 4) eager (19.5), one fused
    ///   read-add-write (10) traced; the final casts to bf16 (4 + 2 each).
    pub fn bookkeeping_bytes(&self) -> f64 {
        let cp = self.cp.max(1) as f64;
        if cp <= 1.0 {
            return 0.0;
        }
        let (merge, dq, dkv, sends) = if self.traced {
            (10.0, 10.0, 10.0, 1.0)
        } else {
            (32.5, 11.5, 19.5, cp - 1.0)
        };
        let kv_copies = 2.0 * self.kv_elems * (4.0 + 4.0 * sends);
        let fwd = self.q_elems * (6.0 + merge * (cp - 1.0) + 6.0) + kv_copies;
        let bwd = self.q_elems * (4.0 + dq * cp + 6.0)
            + 2.0 * self.kv_elems * (4.0 + dkv * cp + 6.0)
            + kv_copies;
        self.fwd_passes * fwd + bwd
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ring(cp: u64, traced: bool) -> Ring {
        Ring {
            cp,
            q_elems: 1e8,
            kv_elems: 1e8,
            fwd_passes: 2.0,
            traced,
        }
    }

    #[test]
    fn one_rank_moves_nothing() {
        let r = ring(1, false);
        assert_eq!(r.all_gather_bytes(), 0.0);
        assert_eq!(r.exposed_comm_seconds(1e11, 1.0), 0.0);
        assert_eq!(r.bookkeeping_bytes(), 0.0);
    }

    #[test]
    fn all_gather_receives_the_other_ranks_kv() {
        // cp = 4: three chunks of K and V, 2 B each.
        let r = ring(4, false);
        assert_eq!(r.all_gather_bytes(), 3.0 * 2.0 * 1e8 * 2.0);
        // dK/dV travel in fp32: twice a bf16 chunk.
        assert_eq!(r.dkv_round_bytes(), 2.0 * r.kv_chunk_bytes());
    }

    #[test]
    fn traced_ring_exposes_every_transfer() {
        let r = ring(4, true);
        let bw = 1e11;
        let ag = r.all_gather_bytes() / bw;
        let dkv = r.dkv_round_bytes() / bw;
        // Three all-gathers (forward, recompute, backward) and four dK/dV sends.
        let want = 3.0 * ag + 4.0 * dkv;
        assert!((r.exposed_comm_seconds(bw, 10.0) - want).abs() < 1e-12);
        assert!((r.transfer_bytes() / bw - want).abs() < 1e-12);
    }

    #[test]
    fn eager_ring_hides_behind_round_kernels() {
        let r = ring(4, false);
        let bw = 1e11;
        let dkv = r.dkv_round_bytes() / bw;
        // Long kernels hide everything but the last dK/dV send.
        assert!((r.exposed_comm_seconds(bw, 100.0) - dkv).abs() < 1e-12);
        // Short kernels hide nothing: the exposed time approaches the traced one.
        let traced = ring(4, true).exposed_comm_seconds(bw, 0.0);
        assert!((r.exposed_comm_seconds(bw, 0.0) - traced).abs() < 1e-12);
        // Only round 0 (1/cp of the pass) hides the all-gather, not the whole pass.
        let ag = r.all_gather_bytes() / bw;
        let pass = 2.0 * ag; // round 0 = ag / 2: half the all-gather shows, twice (two passes)
        let exposed = r.exposed_comm_seconds(bw, pass);
        let bwd_round = 2.5 * pass / 4.0;
        let want = 2.0 * (ag - pass / 4.0)
            + (ag - bwd_round).max(0.0)
            + 3.0 * (dkv - bwd_round).max(0.0)
            + dkv;
        assert!((exposed - want).abs() < 1e-12);
        assert!(exposed > dkv);
    }

    #[test]
    fn bookkeeping_grows_with_rounds_and_fuses_under_compile() {
        let eager4 = ring(4, false).bookkeeping_bytes();
        let eager8 = ring(8, false).bookkeeping_bytes();
        let traced4 = ring(4, true).bookkeeping_bytes();
        assert!(eager8 > eager4);
        assert!(traced4 < eager4);
        // Traced cp = 4 by hand: forward (6 + 30 + 6)·q + (4 + 4)·2kv per pass, twice;
        // backward (4 + 40 + 6)·q + (4 + 40 + 6)·2kv + 16·kv.
        let want = 2.0 * (42.0e8 + 16.0e8) + 50.0e8 + 100.0e8 + 16.0e8;
        assert!((traced4 - want).abs() < 1.0);
    }
}
