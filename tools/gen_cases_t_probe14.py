#!/usr/bin/env python3
"""Round 14 probe (wt-probe14t): published training-throughput rows on hardware gpuplan's users rent
(A100-80G, A800), none of them used to fit anything (out-of-sample by construction).

Reads cases/sources/t-probe14.jsonl (written, with every setup field, before any estimate ran; rows
looked at and not converted are in cases/SKIPPED.md) and writes cases/t-*.toml, reusing the builders
and conventions of tools/gen_cases_t.py and tools/gen_cases_mem.py. Run from the repo root:
    python3 tools/gen_cases_t_probe14.py
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_cases import table, tv  # noqa: E402
from gen_cases_mem import qwen1_lora  # noqa: E402
from gen_cases_t import FLAGPERF_NOTE, run_tput  # noqa: E402

SRC = os.path.join("cases", "sources", "t-probe14.jsonl")
HELD = "Held out (round 14 probe; no constant fitted on this source). "

QWEN1_NOTE = (HELD + "Qwen (v1) README speed column (s/it) of the same cells whose memory is the {mem} case: the workload "
              "is that case's (tools/gen_cases_mem.py qwen1_lora: Qwen's remote code as its shapes, PEFT LoRA r=64 on "
              "c_attn, c_proj, w1, w2 with fp32 adapters (PEFT {peft}), bf16 weights under the Trainer's bf16 autocast, "
              "gradient checkpointing (full recompute), FlashAttention-2, foreach AdamW, batch 1 x 8 accumulation, one "
              "A100-SXM4-80G){emb}. Tokens/s = seq x 8 / (s/it): the HF Trainer's progress bar counts optimizer steps "
              "(8 micro-batches), and every sample is right-padded to model_max_length, so the padding is computed and "
              "counted. The README prints 1-2 significant digits (1.0 s/it is 0.95-1.05, +-5%); the tqdm rate is a "
              "smoothed average whose window is not stated.")
QWEN1_PEFT = {"1.8B": "0.6.2", "7B": "0.5.0", "14B": "0.5.0"}


def qwen1_speed(r):
    s = r["setup"]
    c = qwen1_lora(dict(r, result=dict(memory_g=0.0)))  # the memory builder; only its workload is used
    size = s["model"].split()[0].removeprefix("Qwen-")
    tag = size.replace(".", "").lower()
    emb = "-emb" if s.get("modules_to_save") else ""
    note = QWEN1_NOTE.format(mem=f"mem-qwen1-{tag}-lora{emb}-s{s['seq_len']}", peft=QWEN1_PEFT[size],
                             emb="; LoRA (emb): the embedding and LM head trained as PEFT modules_to_save copies"
                             if emb else "")
    return dict(metric="tokens_per_s_per_gpu", published=r["result"]["tokens_per_s_per_gpu"], unit="tokens/s/GPU",
                notes=note, workload=c["workload"])


AQUILA_FT_NOTE = FLAGPERF_NOTE.replace(
    "Held out (round 6; no constant fitted on this source). FlagPerf's Aquila2-7B case",
    HELD + "FlagPerf's Aquila2-7B fine-tuning case (the pretraining case's FlagScale commit and script, "
    "loaded from a checkpoint, Alpaca data)").replace(
    "9 micro-batches per step (GAS 9) of the row's LBS x 2048 tokens.",
    "The row's GAS micro-batches per step (4 by default; 8 and 16 where fix_hp says) of 1 x 2048 tokens. FlagPerf "
    "counts global batch x 2048 tokens per step (run_pretraining.py), so the samples are taken as filled to 2048 "
    "(Megatron's fixed-shape batches; how FlagScale's finetune_aquila.py pads or packs Alpaca is not read).")
assert AQUILA_FT_NOTE != FLAGPERF_NOTE and "GAS 9" not in AQUILA_FT_NOTE


def aquila_ft(r):
    c = run_tput(dict(r, source_group="flagperf"))
    c["workload"]["training"]["task"] = "full_finetune"
    return dict(c, notes=AQUILA_FT_NOTE)


# FlagPerf's "qwen1.5_MoE" case (megatron_pai_main.sh): not Qwen1.5-MoE-A2.7B but the qwen1_5 layer with
# 8 experts, top-2, each expert the dense --ffn-hidden-size 5504 (Megatron's MoE default), no shared expert;
# vocab Qwen2Tokenizer 151643 + --extra-vocab-size 293 = 151936; untied head.
MOE8_CFG = dict(model_type="mixtral", hidden_size=2048, num_hidden_layers=24, num_attention_heads=16,
                num_key_value_heads=16, intermediate_size=5504, num_local_experts=8, num_experts_per_tok=2,
                vocab_size=151936, max_position_embeddings=8192, tie_word_embeddings=False)
MOE8_NOTE = (HELD + "FlagPerf's 'qwen1.5_MoE' case on one DGX A800 (the catalog's a800-80g; one node, so the stated "
             "200 Gb/s InfiniBand is unused): Pai-Megatron-Patch's qwen1_5 model on Megatron-LM-240405 (mcore models, "
             "Transformer Engine, flash attention). The model is the script's, not Qwen1.5-MoE-A2.7B: 24 layers, hidden "
             "2048, 16 heads, 8 experts of the dense FFN width 5504 (SwiGLU), top-2, no shared expert, vocab 151936, "
             "untied head (q/k/v bias, not a FLOP term), given as a Mixtral-style config. TP 1, PP 2 (1F1B, no virtual "
             "stages), DP 4, EP 1 (all 8 experts on every GPU, so no token all-to-all), micro-batch 1 of 8192 tokens, "
             "global batch 512 (GAS 128), --recompute-activations (selective: core attention recomputed), the "
             "distributed optimizer (ZeRO-1), no overlap flags (Megatron's defaults), bf16 with fp32 gradient "
             "reduction (forced under bf16 in that release) or fp16 with fp16 reduction. No --moe-grouped-gemm: "
             "Megatron runs the 8 local experts as sequential GEMMs (SequentialMLP), not modelled separately from a "
             "grouped GEMM.")


def moe8(r):
    s = r["setup"]
    dp = s["gpus"] // (s["tp"] * s["pp"])
    bf16 = s["precision"] == "bf16"
    parallel = dict(tp=s["tp"], pp=s["pp"], ep=s["ep"], zero=1, grad_reduce_fp32=bf16)
    training = dict(task="pretrain", precision="amp_bf16" if bf16 else "amp_fp16", framework="megatron",
                    micro_batch=s["mbs"], seq_len=s["seq_len"], grad_accum=s["gbs"] // (s["mbs"] * dp),
                    recompute="selective", attention="flash", parallel=parallel)
    w = dict(kind="training", config=MOE8_CFG, training=training,
             hardware=dict(gpu="a800-80g", gpus_per_node=8, nodes=1, inter_link="rdma", inter_gbit=200.0))
    return dict(metric="tokens_per_s_per_gpu", published=r["result"]["tokens_per_s_per_gpu"], unit="tokens/s/GPU",
                notes=MOE8_NOTE, workload=w)


SWIFT_NOTE = (HELD + "ms-swift's Megatron-SWIFT benchmark: Qwen2.5-14B full-parameter SFT on one node of 8 A800 80GiB "
              "(the catalog's a800-80g, 400 GB/s NVLink), bf16, 16 sequences of 8192 packed tokens per step (tokens/s = "
              "131072 / (s/it) / 8). Packing with flash attention attends within each sample; the dataset's sample "
              "lengths are not stated, so attention is charged over the whole 8192 (gpuplan's default), which "
              "overstates attention work if the samples are shorter. ")
SWIFT_MEGATRON = ("Megatron-SWIFT on Megatron-Core core_r0.12.0 (Transformer Engine): TP 4 with sequence parallelism, DP 2, "
                  "micro-batch 1, global batch 16 (GAS 8), selective recompute (core attention), the distributed "
                  "optimizer (Megatron-SWIFT's default use_distributed_optimizer True), fp32 gradient reduction (core_v0.12.0 "
                  "megatron/training/arguments.py lines 591-597 set accumulate_allreduce_grads_in_fp32 under bf16 unless "
                  "--grad-reduce-in-bf16), no overlap flags (tp_comm_overlap, overlap_grad_reduce, overlap_param_gather "
                  "default False in Megatron-SWIFT's parameter list), flash attention.")
SWIFT_DS = ("swift sft: the HF Trainer with transformers' Qwen2 model (framework hugging_face), DeepSpeed ZeRO-{z} "
            "(DeepSpeed's engine, swift's zero{z} config), per-device batch 1 x 2 accumulation, gradient checkpointing "
            "(swift's default gradient_checkpointing true: full recompute), --attn_impl flash_attn.")


def swift(r):
    s = r["setup"]
    if "tp" in s:
        parallel = dict(tp=s["tp"], pp=1, zero=1, sequence_parallel=True, grad_reduce_fp32=True)
        training = dict(task="full_finetune", precision="amp_bf16", framework="megatron", micro_batch=1,
                        seq_len=s["seq_len"], grad_accum=s["gbs"] // (s["gpus"] // s["tp"]), recompute="selective",
                        attention="flash", parallel=parallel)
        note = SWIFT_NOTE + SWIFT_MEGATRON
    else:
        training = dict(task="full_finetune", precision="amp_bf16", framework="hugging_face", micro_batch=1,
                        seq_len=s["seq_len"], grad_accum=s["grad_accum"], recompute="full", attention="flash",
                        deepspeed=True, parallel=dict(zero=s["zero"]))
        note = SWIFT_NOTE + SWIFT_DS.format(z=s["zero"])
    w = dict(kind="training", model=s["model"], training=training,
             hardware=dict(gpu="a800-80g", gpus_per_node=8, nodes=1, inter_link="rdma", inter_gbit=200.0))
    return dict(metric="tokens_per_s_per_gpu", published=r["result"]["tokens_per_s_per_gpu"], unit="tokens/s/GPU",
                notes=note, workload=w)


BUILDERS = {"qwen1-speed": qwen1_speed, "flagperf-aquila2-ft": aquila_ft, "flagperf-qwen15-moe": moe8,
            "swift-megatron-bench": swift}

# Cases outside their band, with what is known of the cause (filled after the accuracy run; none chosen or
# dropped by its error).
KNOWN = {}


def main():
    n = 0
    for r in (json.loads(l) for l in open(SRC) if l.strip()):
        c = BUILDERS[r["source_group"]](r)
        cid = r["id"]
        out = [f"# GENERATED by tools/gen_cases_t_probe14.py from {SRC}; edit the generator or the source rows.",
               f"id = {tv(cid)}", f"kind = {tv(r['kind'])}", f"metric = {tv(c['metric'])}",
               f"published = {tv(float(c['published']))}", f"unit = {tv(c['unit'])}",
               f"source = {tv(r['source'] + ' (' + r['version'] + ')')}", f"quote = {tv(r['quote'])}",
               f"notes = {tv(c['notes'] + ' Context: ' + r['context'])}"]
        if cid in KNOWN:
            out.append(f"known_deviation = {tv(KNOWN[cid])}")
        out.append("")
        table("workload", c["workload"], out)
        open(os.path.join("cases", f"{cid}.toml"), "w").write("\n".join(out) + "\n")
        n += 1
    print(n, "cases")


if __name__ == "__main__":
    main()
