//! Liveness timeline of one training step: which buffers are live in each phase, and where the
//! peak falls.
//!
//! A step is forward → loss → backward → optimizer step. Live bytes per phase (HF/PyTorch
//! semantics, checked on CPU against `torch.profiler` allocation events by
//! tools/measure_peak.py → validation/peak-measured.json, test `tests/measured_peak.rs`):
//! - forward end: resident states + saved activations of every layer + the final norm / LM-head
//!   input + the logits in the compute dtype;
//! - loss: + the fp32 upcast of the logits (HF `ForCausalLMLoss` calls `logits.float()`; a no-op in
//!   fp32) + the fp32 `log_softmax` output that `cross_entropy` saves;
//! - backward at the loss: the saved `log_softmax` output + `nll_loss`'s fp32 gradient + the fp32
//!   `log_softmax` gradient are live together (3 × 4 B × tokens × vocab, measured as the peak op
//!   `aten::_log_softmax_backward_data` on every tiny-model row), while every saved activation is
//!   still live;
//! - backward through the LM head: the logits gradient in the compute dtype and the LM-head
//!   weight gradient;
//! - with gradient accumulation, the gradients of the earlier micro-batches are live from the next
//!   micro-batch's forward on (`zero_grad` runs after the optimizer step), so every phase of the
//!   peak micro-batch carries them;
//! - backward through the layers: the LM-head gradient has materialised, one layer's working set
//!   (its recomputed activations under checkpointing) is added, saved activations free layer by
//!   layer;
//! - optimizer step: all gradients + states + `torch.optim.AdamW(foreach=True)`'s temporary
//!   (`_foreach_sqrt(exp_avg_sq)`: one buffer of the trainable parameters' size).

use crate::units::Bytes;
use serde::Serialize;

/// The buffers of one step on the most loaded device, in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct StepBuffers {
    /// Always live: weights, master copies, optimizer states, ZeRO-3 gather buffers (unless
    /// `gathered` places them), adapters.
    pub resident: f64,
    /// ZeRO-3's gathered parameters in the layers' forward, around the LM head (forward end, loss,
    /// LM-head backward) and in the layers' backward; none at the optimizer step (DeepSpeed: each
    /// tensor's last use in backward releases it; torch FSDP: the final backward callback
    /// reshards the root). Zero when `resident` holds them (FSDP2's whole stage under PP).
    pub gathered: [f64; 3],
    /// FSDP2's third buffer at a forward unshard, the previous unit's all-gather output still
    /// held while the next unit is copied out (train/fsdp.rs): `[at the first layer (the root's),
    /// at a later layer (a unit's)]`; zero otherwise. The "forward: unshard" phase.
    pub unshard_held: [f64; 2],
    /// The first layer's saved input, beside the root's held output at its unshard.
    pub unshard_first_saved: f64,
    /// The full gradient buffer (after backward, during the optimizer step).
    pub grads: f64,
    /// Whether gradients exist before backward (DDP buckets, DeepSpeed/Megatron contiguous
    /// buffers) rather than being created in backward (`zero_grad(set_to_none=True)`).
    pub grads_persistent: bool,
    /// Gradient bytes of the LM head, live once backward has passed it (transient with the
    /// optimizer step fused into backward).
    pub head_grads: f64,
    /// torch.autocast's 16-bit weight copies: made in forward, saved for backward.
    pub weight_copies: f64,
    /// torch.autocast's cast cache under full recompute: the copies of trainable leaf weights in
    /// checkpointed layers, live to the end of the autocast region (forward, and the loss when
    /// `cached_copies_in_loss`), not saved.
    pub cached_copies: f64,
    pub cached_copies_in_loss: bool,
    /// DDP's flat all-reduce buckets (a copy of every gradient unless `gradient_as_bucket_view`),
    /// allocated when the reducer is built: live in every phase.
    pub grad_buckets: f64,
    /// Activations saved by all layers (× in-flight micro-batches).
    pub saved_layers: f64,
    /// Activations saved outside the layers: token ids, final norm, LM-head input.
    pub saved_outside: f64,
    /// One layer's extra working set during its backward (recomputed activations, activation
    /// gradients).
    pub layer_working: f64,
    /// One checkpointed layer's intermediates during its forward (full recompute), next to the
    /// layer inputs saved so far and the previous step's held output: the "forward: layers"
    /// phase; 0 without checkpointing.
    pub forward_working: f64,
    /// Module buffers the step reads, live in every phase and not saved for backward (LitGPT's
    /// rotary cos/sin cache).
    pub rope_cache: f64,
    /// transformers' 4-D eager attention mask, which every checkpointed layer holds from forward
    /// to its backward (`train.rs` `checkpointed_eager_mask`): live in forward, loss and
    /// backward; 0 without eager attention under full checkpointing.
    pub attention_mask: f64,
    /// Whether the checkpoint saves the mask as a layer input (a positional argument: GPT-2),
    /// so that saved-tensor hooks count it; a keyword argument is held by the checkpoint's
    /// recompute closure instead, live but not saved.
    pub attention_mask_saved: bool,
    /// Logits elements (tokens × vocab / tp) and bytes per element in the compute dtype.
    pub logits_elems: f64,
    pub logits_dtype_bytes: f64,
    /// Loss buffers when not HF's unfused cross-entropy: (forward-saved, transient) bytes.
    pub fused_loss: Option<(f64, f64)>,
    /// Chunked cross-entropy (torchtune `CEWithChunkedOutputLoss`): the fp32 upcast exists for
    /// 1 of `n` chunks at a time; each chunk's fp32 log-softmax output stays saved.
    pub loss_chunks: f64,
    /// The per-chunk cross-entropy is torch.compile'd (torchtune `compile: True` →
    /// `training.compile_loss`): each compiled chunk keeps its bf16 logits input and per-row
    /// statistics, no fp32 buffer (validation/compiled-loss-measured.json).
    pub compiled_loss: bool,
    /// torch's `loss_parallel` over vocabulary-sharded logits (DTensor TP, torchtitan): the
    /// decomposed log-softmax and its fused backward keep more fp32 logits-sized buffers than
    /// the fused kernels (see [`loss_buffers`]).
    pub loss_parallel: bool,
    /// flash-attn's fused xentropy kernel ([`crate::workload::TrainingSetup::xentropy_loss`]):
    /// it saves the 16-bit logits (and one fp32 log-sum-exp per token), and its backward writes
    /// a 16-bit logits gradient beside them; no fp32 buffer.
    pub xentropy: bool,
    /// llm.c's fused classifier ([`crate::workload::TrainingSetup::fused_classifier`]): the loss
    /// phase holds the logits in the compute dtype, their gradient written over them.
    pub fused_classifier: bool,
    /// Under pipeline parallelism, the saved layer activations on the last rank, which runs the
    /// LM head and the loss with fewer micro-batches in flight than stage 0 (`saved_layers`
    /// holds stage 0's); `None`: the same device holds both.
    pub saved_layers_at_head: Option<f64>,
    /// DeepSpeed ZeRO's reduce bucket (`ipg_buffer`): allocated by ZeRO-1/2 in each `backward()`
    /// and released at its end, so live in the backward phases; by ZeRO-3 once at start-up, so
    /// live in every phase (`reduce_bucket_always`).
    pub reduce_bucket: f64,
    pub reduce_bucket_always: bool,
    /// DeepSpeed's fp32 copy of the rank's gradient partition, made at the optimizer step.
    pub step_grad32: f64,
    /// Optimizer-step temporaries.
    pub optimizer_temp: f64,
    /// Live only at the end of forward: the previous step's graph held by the training loop
    /// ([`crate::workload::TrainingSetup::keeps_previous_graph`]).
    pub previous_graph: f64,
    /// Live only while the LM head runs in forward: its dequantized copy
    /// ([`crate::workload::TrainingSetup::quantized_lm_head`]).
    pub head_dequant: f64,
    /// Live only at the end of forward, not saved: the final norm's output that a frozen LM head
    /// reads (LitGPT; measured on validation/litgpt-measured.json).
    pub head_input: f64,
    /// Logits the training loop itself holds from forward through backward (LitGPT's chunk list,
    /// not saved by autograd): live in the loss and every backward phase.
    pub held_logits: f64,
    /// Loss-phase transient of LitGPT's chunked loss: `logits[-1][..., :-1, :].reshape(-1, V)`
    /// copies the shifted last chunk when the micro-batch has more than one sequence.
    pub loss_copy: f64,
    /// A validation pass between steps (LitGPT's `validate()`): its buffers, next to the
    /// resident states and the previous step's held output; 0 when not modelled.
    pub validation: f64,
    /// Composer's train metrics, updated after each micro-batch's backward: one metric's
    /// transient buffers over the logits (the "train metrics" phase, next to the gradients and
    /// the logits the loop holds in `state.outputs`); 0 without train metrics.
    pub metric_buffers: f64,
}

/// Live bytes of one phase, by component.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PhaseLive {
    pub phase: &'static str,
    pub components: Vec<(&'static str, Bytes)>,
    pub total: Bytes,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Timeline {
    pub phases: Vec<PhaseLive>,
    /// Index of the phase with the most live bytes.
    pub peak_index: usize,
    /// Bytes saved for backward when forward + loss end (activations, logits buffers, autocast
    /// weight copies), what saved-tensor hooks count.
    pub saved_after_forward: Bytes,
}

impl Timeline {
    pub fn peak(&self) -> &PhaseLive {
        &self.phases[self.peak_index]
    }
}

/// HF cross-entropy over the full logits: fp32 bytes per logit element of (saved log_softmax
/// output, loss-phase transient, backward transient). See the module docs.
fn loss_buffers(b: &StepBuffers) -> (f64, f64, f64) {
    if b.held_logits > 0.0 {
        // LitGPT's chunked loss: in forward only the copy `reshape` makes of the shifted last
        // chunk (b > 1); the gradients come in backward.
        let (saved, transient) = b.fused_loss.unwrap_or((0.0, 0.0));
        return (saved, b.loss_copy, transient);
    }
    if let Some((saved, transient)) = b.fused_loss {
        return (saved, transient, transient);
    }
    let e = b.logits_elems;
    if b.xentropy {
        // flash_attn/losses/cross_entropy.py @v1.0.9 l.89: `ctx.save_for_backward(logits, lse,
        // labels)`; l.100: `xentropy_cuda_lib.backward(..., ctx.inplace_backward, ...)`, and
        // csrc/xentropy/xentropy_kernel.cu l.697: `gI = inplace ? logits_ : at::empty_like(logits_)`
        // (llm-foundry's `FusedCrossEntropyLoss(ignore_index=-100)`: not in place).
        return (b.logits_dtype_bytes * e, 0.0, b.logits_dtype_bytes * e);
    }
    let chunk = 1.0 / b.loss_chunks.max(1.0);
    if b.compiled_loss {
        // Inductor fuses the upcast and the log-sum-exp into one reduction; AOTAutograd's
        // partitioner saves the chunk's bf16 input and per-row statistics, and the backward
        // kernel writes the bf16 gradient directly: only the logits stay (measured: < 0.13 B per
        // logit beyond them in loss and backward, torchtune's 8 chunks). An unchunked compiled
        // loss (torchtitan) is the same graph over one chunk (assumed, not measured).
        return (b.logits_dtype_bytes * e, 0.0, 0.0);
    }
    let upcast = if b.logits_dtype_bytes < 4.0 { 4.0 } else { 0.0 };
    if b.loss_parallel {
        return loss_parallel_buffers(b.logits_dtype_bytes, upcast, e);
    }
    // log_softmax saves its fp32 output for backward: chunking does not shorten that, every
    // chunk's output stays saved (measured: 4 B per logit after an eager chunked loss).
    let saved = 4.0 * e;
    // Forward: the logits (compute dtype) + one chunk's fp32 upcast, next to the saved outputs.
    let loss = b.logits_dtype_bytes * e + upcast * e * chunk;
    // Backward: one chunk's nll_loss fp32 gradient + log_softmax fp32 gradient.
    let bwd = 8.0 * e * chunk;
    (saved, loss, bwd)
}

/// torch's `loss_parallel` (torch/distributed/tensor/parallel/loss.py, read at pytorch@02eef6b8 and
/// in an early-2024 copy importing `torch.distributed._tensor`, alike in every buffer below, so
/// also at torch 1963fc8, December 2024, which torchtitan's benchmark ran):
/// `_log_softmax` follows torch._decomp's decomposition on the local shard, `shifted = x - x_max`,
/// `torch.sum(torch.exp(shifted))` (all-reduced), `result = shifted - shifted_logsumexp`, each an
/// fp32 tensor of the local logits. At its peak the training loop's compute-dtype logits (torchtitan
/// @9dec370 train.py l.303-307 deletes `pred` only after the loss), their fp32 copy
/// (`pred.float()`, l.131-134), `shifted` and `exp(shifted)` or `result` are live; `result` is
/// saved. Backward, `_nll_loss_and_log_softmax_backward` fuses both gradients: `grad_input =
/// torch.zeros_like(x)`, then `(grad_input + torch.exp(x)) * grad_output`, so the saved output,
/// the zeros, the exp and the sum (or the sum and the product) are four fp32 buffers at once:
/// 16 B per logit where the fused kernels' backward needs 12. (saved, forward transient,
/// backward transient) bytes.
fn loss_parallel_buffers(c: f64, upcast: f64, e: f64) -> (f64, f64, f64) {
    (4.0 * e, (c + upcast + 4.0) * e, 12.0 * e)
}

/// Share of the logits gradient live at once in the LM-head backward: all of it, or one chunk
/// when the loss is chunked (torchtune also chunks the output projection). llm.c's fused
/// classifier wrote the gradient over the 16-bit logits, and the LM head's backward reads that
/// buffer (llm.c train_gpt2.cu `gpt2_backward_and_reduce`: `matmul_backward(..., acts.output,
/// acts.lnf, params.wte, ...)` after `fused_classifier`): all of it (review r16 #4).
fn lm_head_share(b: &StepBuffers) -> f64 {
    if b.held_logits > 0.0 || b.fused_classifier {
        // Every chunk's log-softmax gradient waits for its LM-head matmul: autograd runs the
        // loss nodes (created last) before any head chunk.
        1.0
    } else if b.fused_loss.is_some() {
        0.0
    } else {
        1.0 / b.loss_chunks.max(1.0)
    }
}

fn phase<'a>(
    name: &'static str,
    parts: impl IntoIterator<Item = &'a (&'static str, f64)>,
) -> PhaseLive {
    // Room for every part at once (the filter's size hint is 0: collecting grew it 2-3 times).
    let parts = parts.into_iter();
    let mut components = Vec::with_capacity(parts.size_hint().1.unwrap_or(0));
    components.extend(
        parts
            .filter(|(_, v)| *v > 0.0)
            .map(|(n, v)| (*n, Bytes(*v))),
    );
    // From +0.0: `Sum` for f64 starts at −0.0, so a phase with nothing live read "-0.00"
    // (audit r9 #12).
    let total = Bytes(components.iter().fold(0.0, |acc, (_, b)| acc + b.0));
    PhaseLive {
        phase: name,
        components,
        total,
    }
}

/// What a phase function makes of its parts: the phase with its components ([`Components`]),
/// or only its total ([`TotalOnly`]), the same sum of the same parts in the same order.
trait Sink {
    type Out;
    fn make<'a>(
        name: &'static str,
        parts: impl IntoIterator<Item = &'a (&'static str, f64)>,
    ) -> Self::Out;
}

/// The phase as [`Timeline::phases`] holds it.
struct Components;

impl Sink for Components {
    type Out = PhaseLive;
    fn make<'a>(
        name: &'static str,
        parts: impl IntoIterator<Item = &'a (&'static str, f64)>,
    ) -> PhaseLive {
        phase(name, parts)
    }
}

/// The phase's total only, summed as [`phase`] sums it (the live parts from +0.0, in order), so
/// bit for bit its `total`; no list is built.
struct TotalOnly;

impl Sink for TotalOnly {
    type Out = f64;
    fn make<'a>(
        _name: &'static str,
        parts: impl IntoIterator<Item = &'a (&'static str, f64)>,
    ) -> f64 {
        parts
            .into_iter()
            .filter(|(_, v)| *v > 0.0)
            .fold(0.0, |acc, (_, v)| acc + v)
    }
}

/// The phases of a step, in order (those without a buffer of their own left out).
#[derive(Clone, Copy)]
enum Step {
    ForwardUnshard,
    ForwardLayers,
    Forward,
    Loss,
    BackwardLoss,
    BackwardHead,
    BackwardLayers,
    TrainMetrics,
    Optimizer,
    Validation,
}

/// Most phases of one step ([`Step`]'s variants).
const MOST_PHASES: usize = 10;

/// A step's phases and the buffers they read.
struct Phases<'b> {
    b: &'b StepBuffers,
    live: Live,
    /// `loss_buffers`: saved log-softmax output, loss-phase and backward transients.
    loss: (f64, f64, f64),
    order: [Step; MOST_PHASES],
    len: usize,
}

impl<'b> Phases<'b> {
    fn of(b: &'b StepBuffers) -> Phases<'b> {
        let mut order = [Step::Optimizer; MOST_PHASES];
        let mut len = 0;
        let mut add = |s: Step, on: bool| {
            if on {
                order[len] = s;
                len += 1;
            }
        };
        add(
            Step::ForwardUnshard,
            b.unshard_held.iter().any(|h| *h > 0.0),
        );
        add(Step::ForwardLayers, b.forward_working > 0.0);
        for s in [
            Step::Forward,
            Step::Loss,
            Step::BackwardLoss,
            Step::BackwardHead,
            Step::BackwardLayers,
        ] {
            add(s, true);
        }
        add(Step::TrainMetrics, b.metric_buffers > 0.0);
        add(Step::Optimizer, true);
        add(Step::Validation, b.validation > 0.0);
        Phases {
            b,
            live: Live::of(b),
            loss: loss_buffers(b),
            order,
            len,
        }
    }

    fn steps(&self) -> &[Step] {
        &self.order[..self.len]
    }

    fn make<S: Sink>(&self, s: Step) -> S::Out {
        let (b, l) = (self.b, &self.live);
        let (saved, transient, bwd) = self.loss;
        match s {
            Step::ForwardUnshard => forward_unshard_phase::<S>(b, l),
            Step::ForwardLayers => forward_layers_phase::<S>(b, l),
            Step::Forward => forward_phase::<S>(b, l),
            Step::Loss => loss_phase::<S>(b, l, saved + transient),
            Step::BackwardLoss => backward_loss_phase::<S>(b, l, saved + bwd),
            Step::BackwardHead => backward_head_phase::<S>(b, l),
            Step::BackwardLayers => backward_layers_phase::<S>(b, l),
            Step::TrainMetrics => train_metrics_phase::<S>(b),
            Step::Optimizer => optimizer_phase::<S>(b),
            Step::Validation => validation_phase::<S>(b),
        }
    }

    /// Bytes saved for backward when forward + loss end.
    fn saved_after_forward(&self) -> Bytes {
        let mask = if self.b.attention_mask_saved {
            self.b.attention_mask
        } else {
            0.0
        };
        Bytes(self.live.acts + self.loss.0 + self.b.weight_copies + mask)
    }
}

/// The index of the first phase with the most live bytes.
fn peak_of(totals: impl Iterator<Item = f64>) -> usize {
    let mut best = (0, f64::NAN);
    for (i, t) in totals.enumerate() {
        if i == 0 || t > best.1 {
            best = (i, t);
        }
    }
    best.0
}

/// Build the timeline of one step from its buffers.
pub fn step_timeline(b: &StepBuffers) -> Timeline {
    let p = Phases::of(b);
    let phases: Vec<PhaseLive> = p.steps().iter().map(|&s| p.make::<Components>(s)).collect();
    let peak_index = peak_of(phases.iter().map(|p| p.total.0));
    Timeline {
        phases,
        peak_index,
        saved_after_forward: p.saved_after_forward(),
    }
}

/// [`step_timeline`] with only its peak phase built: `phases` holds that phase alone (at
/// `peak_index` 0), equal to the full timeline's peak, and `saved_after_forward` is the same.
/// The other phases are summed, not listed (a memory search that reads only the peak).
pub fn step_timeline_peak(b: &StepBuffers) -> Timeline {
    let p = Phases::of(b);
    let peak = peak_of(p.steps().iter().map(|&s| p.make::<TotalOnly>(s)));
    Timeline {
        phases: vec![p.make::<Components>(p.steps()[peak])],
        peak_index: 0,
        saved_after_forward: p.saved_after_forward(),
    }
}

/// What the phases of forward, loss and backward share.
struct Live {
    /// The components every one of those phases has.
    common: [(&'static str, f64); 6],
    /// DeepSpeed ZeRO-1/2's reduce bucket, live in backward only.
    backward_bucket: f64,
    /// Gradients live from the step's start (persistent buffers, accumulation).
    early_grads: f64,
    /// Saved activations, inside and outside the layers.
    acts: f64,
    /// The same on the rank that runs the LM head and the loss (the last pipeline rank).
    acts_at_head: f64,
    /// LitGPT's chunked loss and flash-attn's xentropy keep their buffers in the compute dtype.
    loss_label: &'static str,
}

impl Live {
    fn of(b: &StepBuffers) -> Live {
        Live {
            common: [
                ("resident states", b.resident),
                ("rotary cache", b.rope_cache),
                ("DDP gradient buckets", b.grad_buckets),
                ("autocast weight copies", b.weight_copies),
                (REDUCE_BUCKET, always_bucket(b)),
                ("attention mask", b.attention_mask),
            ],
            backward_bucket: b.reduce_bucket - always_bucket(b),
            early_grads: if b.grads_persistent { b.grads } else { 0.0 },
            acts: b.saved_layers + b.saved_outside,
            acts_at_head: b.saved_layers_at_head.unwrap_or(b.saved_layers) + b.saved_outside,
            loss_label: if (b.held_logits > 0.0 || b.xentropy || b.fused_classifier)
                && b.logits_dtype_bytes < 4.0
            {
                "loss buffers (bf16)"
            } else {
                "loss buffers (fp32)"
            },
        }
    }

    /// The common components, then the phase's own (no intermediate Vec: this runs for every
    /// configuration the planner sizes).
    fn with<'a>(
        &'a self,
        extra: &'a [(&'static str, f64)],
    ) -> impl Iterator<Item = &'a (&'static str, f64)> {
        self.common.iter().chain(extra)
    }
}

const REDUCE_BUCKET: &str = "ZeRO reduce bucket";
/// The name of train.rs's item of the same bytes.
const GATHERED: &str = "ZeRO-3 gather buffers";

fn always_bucket(b: &StepBuffers) -> f64 {
    if b.reduce_bucket_always {
        b.reduce_bucket
    } else {
        0.0
    }
}

/// The timeline component of FSDP2's held all-gather output.
const HELD: &str = "FSDP2 held all-gather output";

/// FSDP2's copy-out of a unit's all-gather in forward, the previous unit's output still held
/// (`unshard_held`), between two layers' forwards: no layer's working set is live. At the first
/// layer the root's output, beside the first layer's input; at a later layer a unit's, beside the layer
/// inputs saved so far (counted whole, as "forward: layers" counts them). The larger moment.
fn forward_unshard_phase<S: Sink>(b: &StepBuffers, l: &Live) -> S::Out {
    let [first, later] = b.unshard_held;
    let later_moment = later + b.saved_layers + b.cached_copies;
    let (held, saved, cast) = if first + b.unshard_first_saved > later_moment {
        (first, b.unshard_first_saved, 0.0)
    } else {
        (later, b.saved_layers, b.cached_copies)
    };
    S::make(
        "forward: unshard",
        l.with(&[
            ("gradients", l.early_grads),
            ("autocast cast cache", cast),
            ("saved activations", saved),
            ("previous step's kept inputs", b.previous_graph),
            (GATHERED, b.gathered[0]),
            (HELD, held),
        ]),
    )
}

/// Full checkpointing: a layer's intermediates while its forward runs.
fn forward_layers_phase<S: Sink>(b: &StepBuffers, l: &Live) -> S::Out {
    S::make(
        "forward: layers",
        l.with(&[
            ("gradients", l.early_grads),
            ("autocast cast cache", b.cached_copies),
            ("saved activations", b.saved_layers),
            ("previous step's kept inputs", b.previous_graph),
            ("layer forward working set", b.forward_working),
            (GATHERED, b.gathered[0]),
        ]),
    )
}

fn forward_phase<S: Sink>(b: &StepBuffers, l: &Live) -> S::Out {
    S::make(
        "forward",
        l.with(&[
            ("gradients", l.early_grads),
            ("autocast cast cache", b.cached_copies),
            ("saved activations", l.acts_at_head),
            ("logits", b.logits_dtype_bytes * b.logits_elems),
            ("previous step's kept inputs", b.previous_graph),
            ("LM-head dequantisation", b.head_dequant),
            ("LM-head input", b.head_input),
            (GATHERED, b.gathered[1]),
        ]),
    )
}

fn loss_phase<S: Sink>(b: &StepBuffers, l: &Live, loss: f64) -> S::Out {
    let cast_cache = if b.cached_copies_in_loss {
        b.cached_copies
    } else {
        0.0
    };
    S::make(
        "loss",
        l.with(&[
            ("gradients", l.early_grads),
            ("autocast cast cache", cast_cache),
            ("saved activations", l.acts_at_head),
            ("logits", b.held_logits),
            (l.loss_label, loss),
            (GATHERED, b.gathered[1]),
        ]),
    )
}

fn backward_loss_phase<S: Sink>(b: &StepBuffers, l: &Live, loss: f64) -> S::Out {
    S::make(
        "backward: loss",
        l.with(&[
            (REDUCE_BUCKET, l.backward_bucket),
            ("gradients", l.early_grads),
            ("saved activations", l.acts_at_head),
            ("logits", b.held_logits),
            (l.loss_label, loss),
            (GATHERED, b.gathered[1]),
        ]),
    )
}

fn backward_head_phase<S: Sink>(b: &StepBuffers, l: &Live) -> S::Out {
    S::make(
        "backward: LM head",
        l.with(&[
            (REDUCE_BUCKET, l.backward_bucket),
            ("gradients", l.early_grads.max(b.head_grads)),
            ("saved activations", l.acts_at_head),
            ("logits", b.held_logits),
            // A 4-bit head dequantizes again for its input gradient (bitsandbytes
            // `MatMul4Bit.backward`: `grad_output @ dequantize_4bit(B).to(dtype).t()`).
            ("LM-head dequantisation", b.head_dequant),
            (
                "logits gradient",
                b.logits_dtype_bytes * b.logits_elems * lm_head_share(b),
            ),
            (GATHERED, b.gathered[1]),
        ]),
    )
}

fn backward_layers_phase<S: Sink>(b: &StepBuffers, l: &Live) -> S::Out {
    S::make(
        "backward: layers",
        l.with(&[
            (REDUCE_BUCKET, l.backward_bucket),
            // No full gradient buffer (optimizer in backward, offload): the LM-head gradient was
            // applied and freed.
            ("gradients", l.early_grads.max(b.head_grads.min(b.grads))),
            ("saved activations", b.saved_layers),
            // The loop's own reference (LitGPT's `logits` list) outlives backward.
            ("logits", b.held_logits),
            ("layer working set", b.layer_working),
            (GATHERED, b.gathered[2]),
        ]),
    )
}

fn optimizer_phase<S: Sink>(b: &StepBuffers) -> S::Out {
    S::make(
        "optimizer step",
        &[
            ("resident states", b.resident),
            ("rotary cache", b.rope_cache),
            ("DDP gradient buckets", b.grad_buckets),
            (REDUCE_BUCKET, always_bucket(b)),
            ("gradients", b.grads),
            ("fp32 gradient partition", b.step_grad32),
            ("optimizer temporaries", b.optimizer_temp),
        ],
    )
}

/// Composer's train metrics after a micro-batch's backward (composer/trainer/trainer.py @v0.13.4
/// l.2340-2343: `_eval_train_metrics` after `microbatch_loss.backward()`): the gradients, the
/// logits `state.outputs` still holds and one metric's buffers; no activation is live any more
/// and FSDP has resharded its units.
fn train_metrics_phase<S: Sink>(b: &StepBuffers) -> S::Out {
    S::make(
        "train metrics",
        &[
            ("resident states", b.resident),
            ("rotary cache", b.rope_cache),
            ("DDP gradient buckets", b.grad_buckets),
            (REDUCE_BUCKET, always_bucket(b)),
            ("gradients", b.grads),
            ("logits", b.logits_dtype_bytes * b.logits_elems),
            ("train metric buffers", b.metric_buffers),
        ],
    )
}

/// A validation pass between steps (LitGPT's loop).
fn validation_phase<S: Sink>(b: &StepBuffers) -> S::Out {
    S::make(
        "validation",
        &[
            ("resident states", b.resident),
            ("rotary cache", b.rope_cache),
            ("DDP gradient buckets", b.grad_buckets),
            (REDUCE_BUCKET, always_bucket(b)),
            ("previous step's kept inputs", b.previous_graph),
            ("validation logits + loss", b.validation),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The peak-only timeline is the full one's peak phase (ties to the first, as the full one),
    /// whichever optional phases exist and whichever phase peaks.
    #[test]
    fn the_peak_only_timeline_is_the_full_timelines_peak() {
        let base = StepBuffers {
            resident: 100.0,
            grads: 10.0,
            saved_layers: 50.0,
            logits_elems: 100.0,
            logits_dtype_bytes: 2.0,
            loss_chunks: 1.0,
            ..Default::default()
        };
        let cases = [
            base,
            StepBuffers {
                forward_working: 30.0,
                metric_buffers: 5.0,
                validation: 4000.0,
                ..base
            },
            StepBuffers {
                optimizer_temp: 5000.0,
                forward_working: 7000.0,
                ..base
            },
            StepBuffers {
                logits_elems: 0.0,
                saved_layers: 0.0,
                grads: 0.0,
                ..base
            },
            StepBuffers::default(),
        ];
        for b in cases {
            let (full, peak) = (step_timeline(&b), step_timeline_peak(&b));
            assert_eq!(peak.phases.len(), 1);
            assert_eq!(peak.peak(), full.peak());
            assert_eq!(peak.saved_after_forward, full.saved_after_forward);
        }
    }

    #[test]
    fn loss_backward_is_the_peak_when_logits_dominate() {
        let b = StepBuffers {
            resident: 100.0,
            grads: 10.0,
            saved_layers: 50.0,
            logits_elems: 100.0,
            logits_dtype_bytes: 2.0,
            loss_chunks: 1.0,
            ..Default::default()
        };
        let t = step_timeline(&b);
        assert_eq!(t.peak().phase, "backward: loss");
        // resident + saved + 12 B per logit (saved log_softmax + two fp32 gradients)
        assert_eq!(t.peak().total.0, 100.0 + 50.0 + 1200.0);
        assert_eq!(t.saved_after_forward.0, 50.0 + 400.0);
    }

    /// flash-attn's xentropy: the saved bf16 logits in the loss phase, + a bf16 gradient in its
    /// backward, then the gradient alone through the LM head (HF's eager loss: 6, 12 and 2 B).
    #[test]
    fn xentropy_keeps_the_logits_and_one_gradient() {
        let t = step_timeline(&StepBuffers {
            logits_elems: 100.0,
            logits_dtype_bytes: 2.0,
            loss_chunks: 1.0,
            xentropy: true,
            ..Default::default()
        });
        let total = |name: &str| t.phases.iter().find(|p| p.phase == name).unwrap().total.0;
        assert_eq!(total("loss"), 200.0);
        assert_eq!(total("backward: loss"), 400.0);
        assert_eq!(total("backward: LM head"), 200.0);
        assert_eq!(t.saved_after_forward.0, 200.0);
    }

    /// llm.c's fused classifier: the 16-bit logits in the loss and its backward, then the
    /// gradient written over them, still live through the LM head's backward (review r16 #4).
    #[test]
    fn fused_classifier_keeps_its_in_place_buffer_through_the_lm_head() {
        let t = step_timeline(&StepBuffers {
            logits_elems: 100.0,
            logits_dtype_bytes: 2.0,
            loss_chunks: 1.0,
            fused_loss: Some((0.0, 200.0)),
            fused_classifier: true,
            ..Default::default()
        });
        let total = |name: &str| t.phases.iter().find(|p| p.phase == name).unwrap().total.0;
        assert_eq!(total("loss"), 200.0);
        assert_eq!(total("backward: loss"), 200.0);
        assert_eq!(total("backward: LM head"), 200.0);
    }

    #[test]
    fn loss_parallel_adds_one_fp32_buffer_in_each_loss_phase() {
        let at = |loss_parallel: bool| {
            let t = step_timeline(&StepBuffers {
                logits_elems: 100.0,
                logits_dtype_bytes: 2.0,
                loss_chunks: 1.0,
                loss_parallel,
                ..Default::default()
            });
            (t.phases[1].total.0, t.phases[2].total.0)
        };
        // bf16 logits + fp32 copy + shifted + exp (or the saved result); backward: the saved
        // result, zeros, exp and their sum.
        assert_eq!(at(true), (1400.0, 1600.0));
        assert_eq!(at(false), (1000.0, 1200.0));
    }

    #[test]
    fn a_checkpointed_eager_mask_is_live_to_backward_and_saved_only_as_a_layer_input() {
        let at = |saved: bool| {
            step_timeline(&StepBuffers {
                resident: 1000.0,
                saved_layers: 50.0,
                loss_chunks: 1.0,
                attention_mask: 30.0,
                attention_mask_saved: saved,
                ..Default::default()
            })
        };
        for saved in [false, true] {
            let t = at(saved);
            let live = |name: &str| {
                let p = t.phases.iter().find(|p| p.phase == name).unwrap();
                p.components.iter().any(|(n, _)| *n == "attention mask")
            };
            assert!(live("forward") && live("loss") && live("backward: layers"));
            assert!(!live("optimizer step"));
            // Saved-tensor hooks see it only where the checkpoint saves it (GPT-2).
            let expect = 50.0 + if saved { 30.0 } else { 0.0 };
            assert_eq!(t.saved_after_forward.0, expect);
        }
    }

    #[test]
    fn optimizer_step_is_the_peak_when_states_dominate() {
        let b = StepBuffers {
            resident: 1000.0,
            grads: 500.0,
            optimizer_temp: 500.0,
            saved_layers: 50.0,
            loss_chunks: 1.0,
            ..Default::default()
        };
        let t = step_timeline(&b);
        assert_eq!(t.peak().phase, "optimizer step");
        assert_eq!(t.peak().total.0, 2000.0);
    }

    #[test]
    fn train_metrics_run_after_backward_beside_the_gradients_and_held_logits() {
        let b = StepBuffers {
            resident: 1000.0,
            grads: 300.0,
            saved_layers: 200.0,
            logits_elems: 100.0,
            logits_dtype_bytes: 2.0,
            xentropy: true,
            metric_buffers: 800.0,
            ..Default::default()
        };
        let t = step_timeline(&b);
        let names: Vec<_> = t.phases.iter().map(|p| p.phase).collect();
        let m = names.iter().position(|n| *n == "train metrics").unwrap();
        assert_eq!(names[m - 1], "backward: layers");
        assert_eq!(names[m + 1], "optimizer step");
        // Resident + gradients + the held bf16 logits + one metric's fp32 buffers; no activations.
        assert_eq!(t.peak().phase, "train metrics");
        assert_eq!(t.peak().total.0, 1000.0 + 300.0 + 200.0 + 800.0);
        let without = step_timeline(&StepBuffers {
            metric_buffers: 0.0,
            ..b
        });
        assert!(without.phases.iter().all(|p| p.phase != "train metrics"));
    }
}
