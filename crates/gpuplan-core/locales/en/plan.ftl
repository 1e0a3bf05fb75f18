# `gpuplan plan` output.

plan-title = gpuplan plan: { $what }
plan-what-train = { $model } { $task }, { $seq ->
    [none] {""}
   *[other] seq len { $seq },{" "}
}{ $amount } { $unit }
plan-what-serve = { $model } serving{ $kind ->
    [opaque] {""}
    [encoder] , { $input } tokens
    [asr] , { $seconds } s of audio per request ({ $input }+{ $output } decoder tokens)
   *[decoder] , { $input }+{ $output } tokens
}{ $rate ->
    [none] {""}
   *[other] , { $rate } req/s
}{ $conc ->
    [none] {""}
   *[other] , { $conc } concurrent requests
}{ $ttft ->
    [none] {""}
   *[other] , { $kind ->
        [decoder] TTFT
        [asr] TTFT
       *[other] latency
    } < { $ttft }
}{ $tpot ->
    [none] {""}
   *[other] , TPOT < { $tpot }
}
plan-latency-target = { $unit ->
    [ms] { $v } ms
   *[s] { $v } s
}
plan-searched = searched { $candidates } candidates of { $types } instance types, { $configs } configurations, { $plans } feasible plans
plan-none = NO PLAN satisfies the constraints.
plan-col-plan = plan
plan-col-provider = provider
plan-col-time = time
plan-col-cost = cost
plan-col-config = parallelism / serving
plan-col-mem = GiB/GPU
plan-col-headroom = free
plan-col-bottleneck = bottleneck
# The bottleneck column's header where `bottleneck` would break mid-word (a narrow terminal).
plan-col-bottleneck-narrow = bound
plan-col-cost-month = ¥/month
plan-per-month = —
plan-no-price = no price known
plan-cost = ¥{ $cny }{ $serve ->
    [yes] /month
   *[no] {""}
} ({ $billing }, { $kind } { $as_of })
plan-cost-short = ¥{ $cny }{ $serve ->
    [yes] /mo
   *[no] {""}
}
plan-cny-compact = { $en ->
    [b] { $b }B
   *[m] { $m }M
}
plan-cost-short-none = no price
plan-config-serve = { $weights } TP{ $tp } × { $replicas } replicas, batch size { $batch }
plan-recompute-full = recompute{" "}
plan-recompute-selective = sel-recompute{" "}
plan-recompute-op = op-recompute{" "}
plan-same-answer = same answer as plan { $n }: { $list }
plan-same-answer-more = same answer as plan { $n }: { $list } and { $more } more (every one: --format json, "also")
plan-dominated-item = plan { $n } (than plan { $by }; bottleneck: { $bottleneck })
plan-dominated-note = slower and dearer than a plan above them, listed as the next-cheapest layouts for comparison, not as choices: { $list }
plan-left-out-note = not listed: { $why } [{ $constraint }]
cav-unpriced-spot = no price to cost spot with, but the time is spot's: { $per_hour } preemptions an hour ({ $nodes } nodes × --preemption-rate), checkpoint every { $interval } min, +{ $overhead }% time (as a priced plan's spot row)
plan-same-cost-item = plan { $n } (same total as plan { $by }; bottleneck: { $bottleneck })
plan-same-cost-note = slower at the same total as a plan above them (the price is for whole billing periods, bought however little of them the job uses), listed for comparison, not as choices: { $list }
plan-batch-raised-item = plan { $n } ({ $runs } sequences a step)
plan-batch-raised-note = more sequences a step than the global batch of { $want } (each data-parallel rank takes at least one micro-batch; the accumulation rounds up), so their time is for another training recipe: scale the learning rate, or set --global-batch: { $list }
plan-years-note = plan 1 takes { $hours }: at its throughput per node, finishing within a year needs at least ~{ $need } nodes instead of { $nodes } (linear scaling, a lower bound: communication grows with the nodes); raise --max-nodes (now { $max }) or train on fewer tokens
plan-list-sep = ,{" "}
plan-unpriced-by-time = plans are ranked by time, priced or not: those without a known price show "no price" (import prices: `gpuplan catalog import`)
plan-unpriced-order = plans without a known price are ranked after priced ones, by GPU-hours (import prices: `gpuplan catalog import`)
plan-legend-pareto = * = on the cost-vs-time Pareto frontier. Costs within { $tie } of each other count as equal: the faster plan ranks first.
plan-legend-compact = ¥ = the plan's total at its cheapest billing (serving: per month); free = GiB of memory left per GPU. `--wide` shows the provider, billing, price kind and parallelism.
plan-defaults = Defaults that shaped this answer: { $list }.
plan-default-seq = sequence length { $v } (--seq-len)
plan-default-batch = global batch { $v } sequences (--global-batch)
plan-default-max-nodes = at most { $v } nodes (--max-nodes)
plan-default-prompt = { $seconds ->
    [none] {""}
   *[other] { $seconds } s of audio and{" "}
}{ $input } input + { $output } output tokens per request (--input-tokens/--output-tokens)
plan-default-prompt-input = { $input } input tokens per request (--input-tokens)
plan-default-no-load = no load given (--rate/--concurrency): { $v } replicas (--min-replicas) sized at their full capacity
plan-default-replicas = at least { $v } replicas (--min-replicas)
plan-default-peak = peak { $v }× the stated load (--peak-factor)
plan-default-chips = NVIDIA chips only (--chips nvidia,ascend,amd)
plan-top = Plan 1: { $nodes } × { $id } ({ $gpu }, { $provider })
plan-mem-title = memory per GPU: { $total } GiB at the peak ({ $phase }; { $gib } GiB allocated by the framework, the rest allocator reserve and runtime context)
plan-col-component = component
plan-col-how = how
plan-why-not-one = Why not one GPU: on one { $gpu } this job needs { $need } GiB even with full recompute at micro-batch 1, over its { $have } GiB; split as { $split } on { $gpus } GPUs, it needs { $per } GiB per GPU.
plan-split-zero = ZeRO-{ $zero } over { $dp } data-parallel ranks
plan-step-title = time per step
plan-col-part = part
plan-col-share = share
plan-step-compute = compute
plan-step-bubble = pipeline bubble
plan-step-tp = tensor-parallel comm
plan-step-dp = data-parallel comm (exposed)
plan-step-pp-ep = pipeline p2p + expert all-to-all
plan-step-offload = host offload (PCIe)
plan-step-step = step
plan-throughput = throughput { $rate } { $unit }/s ({ $per } per GPU), MFU { $mfu }%; data read { $read }, checkpoint { $ckpt }
plan-failures = failures: +{ $pct }% time (λ = { $per_day } interruptions per day on { $gpus } { $gpus ->
    [one] GPU
   *[other] GPUs
}, checkpoint every { $min } min)
plan-serving = serving: { $replicas } { $replicas ->
    [one] replica
   *[other] replicas
} × TP{ $tp } ({ $weights } weights), batch size { $batch } per replica at { $rps } req/s each; unloaded TTFT { $ttft }, { $tpot } per output token; { $wgib } GiB weights and a { $kv } GiB KV pool ({ $tokens } tokens) per GPU
plan-serving-load = under load: { $rate } req/s per replica at the { $peak }× peak rate ({ $util }% of its { $cap } req/s capacity, { $share }% of each second prefilling; { $stated }% at the stated rate): TPOT { $tpot }, TTFT { $ttft } ({ $slot } waiting for one of the { $batch } batch slots, { $queue } for the prompts ahead); { $mix }
plan-serving-load-norate = under load: { $rate } req/s per replica ({ $util }% of its { $cap } req/s capacity, { $share }% of each second prefilling): TPOT { $tpot }, TTFT { $ttft } ({ $slot } waiting for one of the { $batch } batch slots, { $queue } for the prompts ahead); { $mix }
plan-serving-load-closed = under load: { $inflight } requests in flight per replica at the { $peak }× peak concurrency ({ $running } running in its { $batch } batch slots, { $util }% of them; { $share }% of each second prefilling), completing { $rate } req/s per replica (Little's law: requests in flight ÷ time per request): TPOT { $tpot }, TTFT { $ttft } ({ $slot } waiting for a slot: a fixed concurrency waits only for the requests beyond the slots); { $mix }
serve-mix-chunked = vLLM chunked prefill: a prompt rides { $steps ->
        [one] { $steps } decode step
       *[other] { $steps } decode steps
    } within the { $budget }-token step budget
serve-mix-whole = TensorRT-LLM in-flight batching: the prompt's context phase rides one decode step
serve-mix-paused = prefill batches pause the decode batch (SGLang without mixed chunks, static engine)
plan-serving-batch = serving: { $replicas } { $replicas ->
    [one] replica
   *[other] replicas
} ({ $weights } weights), batches of { $batch } requests per replica at { $rps } req/s each; { $latency } per batch; { $wgib } GiB weights per GPU
plan-serving-cost-requests = ¥{ $k } per 1k requests
plan-serving-cost = ¥{ $m } per million tokens, ¥{ $k } per 1k requests
plan-serving-cost-per-request = ¥{ $k } per 1k requests
plan-serving-cost-audio = ¥{ $h } per hour of audio, ¥{ $k } per 1k requests ({ $seconds }-s windows)
serve-mix-asr = each request's prefill runs the audio encoder over { $positions } positions ({ $seconds } s of audio) and the 4-token decoder prompt; decode reads the cross-attention K/V of those { $positions } positions every step
# A model import warning (model/hf.rs, English; its phrases translated as a parser's).
warn-model-import = { $text }
warn-region-unknown = region { $region } is not in gpuplan's catalog{ $close ->
    [none] {""}
   *[other] {" "}(did you mean { $close }?)
}; known: { $known ->
    [none] none listed
   *[other] { $known }
}. Prices are from { $priced ->
    [none] rows that state no region
   *[other] { $priced }
}{ $undoc ->
    [none] {""}
   *[other] , and the types that name no regions ({ $undoc }) are planned as if sold there
}: check that the region exists and sells these types (the catalog has no complete region list to refuse it by)
plan-costs-title = cost by billing mode
plan-col-billing = billing
plan-col-total = total
plan-col-unit-price = unit price
plan-col-note = note
plan-unit-price = ¥{ $cny } { $kind } ({ $region }, { $as_of }{ $age })
plan-storage-priced = storage: { $name }, { $gib } GiB: ¥{ $cny } for the job, included in the totals above
plan-storage-unpriced = storage: { $name }, { $gib } GiB: no price known, NOT included in the totals above
plan-advice-title = advice
plan-explain-title = why each plan beats the next
plan-beats = { $a } beats { $b }: { $parts }
plan-parts-sep = ;{" "}
plan-cheaper = costs { $pct }% less ({ $a }; the other { $b })
plan-balanced-lower = balanced score (√(cost × time) against the best of each) { $pct }% lower ({ $a }; the other { $b })
plan-priced-vs-unpriced = has a known price (the other is ranked by GPU-hours)
plan-fewer-gpu-hours = no price known: fewer GPU-hours ({ $a }; the other { $b })
plan-sooner = finishes { $pct }% sooner ({ $a }; the other { $b })
plan-fewer-gpus = uses { $a ->
    [one] { $a } GPU
   *[other] { $a } GPUs
} instead of { $b }
plan-other-comm = the other spends { $pct }% of each step communicating over { $link }
plan-less-quantized = serves { $a } weights instead of { $b } (less quantization)
plan-tie-cost = ties on cost and time as shown; ordered by the exact values, then fewer GPUs
plan-tie = ties as shown; ordered by the exact values, then fewer GPUs
plan-tie-unpriced = neither plan has a known price; ordered by GPU-hours, then fewer GPUs
plan-work-samples = samples
plan-work-tokens = tokens
prices-stale-first = plan { $rank }: the { $kind } { $billing } price of { $instance } is { $days } days old (as of { $as_of }); refresh it with `{ $refresh }`
prices-stale-others = { $count ->
    [one] plan { $ranks } also uses
   *[other] plans { $ranks } also use
} prices older than { $days } days (their refresh commands: `--format json`, price_ages)
plan-note-asr = serving { $model } as speech recognition: each request is { $seconds } s of audio (the encoder's { $positions } positions), a { $input }-token decoder prompt (start-of-transcript, language, task, no-timestamps) and at most { $output } transcript tokens (Whisper's per-window limit, n_text_ctx / 2; set --output-tokens to the expected transcript length)
plan-note-encoder = serving { $model }: one forward per request of { $input } input tokens (set --input-tokens to change it)
plan-note-prompt-shortened = default prompt shortened to { $room } input tokens to fit { $model }'s { $ctx }-token context (set --input-tokens/--output-tokens to change it)
note-prompt-max-model-len = default prompt shortened to { $room } input tokens to fit max_model_len { $len } (set --input-tokens/--output-tokens to change it)
plan-note-max-price-age = --max-price-age { $age }: { $n } price(s) older than { $days } days are ignored
cat-col-id = instance type
cat-col-ram = RAM GiB
cat-col-net = net Gbit/s
cat-col-link = GPU link
cat-col-price = { $billing } price
cat-col-price-short = ¥
cat-col-confidence = confidence
cat-col-origin = origin
cat-instances-legend = { $n } instance types. ¥ = { $billing } price (per hour; monthly: per month). RDMA: ✓ = eRDMA, RoCE or InfiniBand, – = none, ? = not documented; – elsewhere = not sourced. `--wide` shows network, links, price kind and date, confidence and origin; prices: list = published, user = yours, estimate = derived (see `catalog show`).
plan-export-nothing = --export: no plan meets the constraints, nothing was exported

## Why no plan came out (plan/*.rs Binding)
bind-no-candidates = no candidate instance type: { $why }
bind-why-regions = { $n } type(s) match the provider and chip filters but their documented regions exclude { $regions }
bind-why-sold-out = every matching type was reported sold out by the provider's stock API (re-import to refresh)
bind-why-no-match = no instance type matches the provider, region and chip filters
bind-chip-skipped = { $gpu } skipped: { $why }
bind-chips-skipped = { $n ->
        [one] 1 GPU type cannot run
       *[other] { $n } GPU types cannot run
    } the chosen precision, attention or context parallelism (or have no sourced peak FLOP/s to time it) and { $n ->
        [one] was
       *[other] were
    } not searched ({ $gpus }); name one with --gpu for the reason
bind-unpriced-left-out = { $n } plan(s) on types with no known price were left out: they cannot be checked against the budget (import prices with `gpuplan catalog import`)
bind-pinned = no plan keeps { $keys } as the workload sets { $n ->
        [one] it
       *[other] them
    }; the search finds plans when it may choose { $n ->
        [one] it
       *[other] them
    }: remove { $n ->
        [one] the key
       *[other] these keys
    } from the workload to let the planner choose, or change the value
bind-no-fit = no configuration fits memory: the closest, { $what } with { $layout }, { $recompute }, micro-batch { $mb }, needs { $need } GiB per GPU of { $have } GiB
bind-over-deadline = the fastest plan, { $what }, takes { $h }, over the { $d } deadline by { $over }: allow more nodes (--max-nodes) or more time
bind-over-budget = cheapest plan { $what } costs ¥{ $x }, over the ¥{ $b } budget by ¥{ $over }{ $spot ->
    [none] {""}
   *[other] ; with spot (if the job tolerates interruption: --interruptible) it is ¥{ $spot }
}
bind-over-budget-deadline = cheapest plan within the { $d } deadline, { $what }, costs ¥{ $x }, over the ¥{ $b } budget by ¥{ $over }{ $spot ->
    [none] {""}
   *[other] ; with spot (if the job tolerates interruption: --interruptible) it is ¥{ $spot }
}
bind-budget-on-demand = billed on demand (--billing on-demand) instead of the chosen billing mode, { $what } costs ¥{ $x }{ $within ->
    [yes] , within the budget
   *[no] {""}
}
bind-megatron-fits = under --profile megatron (Megatron-Core's tensor and pipeline parallelism; MindSpeed-LLM on Ascend) the search finds { $n } plan(s) its launch bundle runs as planned (ZeRO ≤ 1); the first, { $what } with { $layout }, takes { $h }{ $cost ->
    [none] {""}
   *[other] {" "}for ¥{ $cost }
}; run again with --profile megatron
bind-serve-over-budget = cheapest serving plan { $what } costs ¥{ $x }/month, over the ¥{ $b } budget by ¥{ $over }
bind-serve-no-bandwidth = no serving plan can be estimated on { $gpus }: the catalog has no sourced memory bandwidth for it, and decode latency (each output token reads the weights and the KV cache) cannot be computed without one. Plan serving on other chips (--chips nvidia), or benchmark the engine (MindIE, vLLM-Ascend) on one node
bind-serve-over-max-nodes = every serving fleet needs more than { $max } nodes (the smallest, { $n } × { $what }): allow more nodes (--max-nodes { $n }) or fewer replicas (--min-replicas, --rate)
bind-serve-engine-nvidia-only = TensorRT-LLM runs on NVIDIA GPUs only: none of the { $n } instance types searched has one (--engine vllm or sglang runs on Ascend and AMD; or --chips nvidia)
bind-serve-engine-min-cc = { $engine } starts only from compute capability { $min }: none of the { $n } instance types searched has such a GPU (vLLM from 7.0, SGLang from 7.5; or a newer --gpu)
bind-serve-fp8-nowhere = no GPU of the { $n } instance types searched loads FP8 weights under this engine (FP8 needs FP8 units; vLLM and SGLang also run it through FP8 Marlin on CUDA Ampere and newer; Ascend 910B has neither): use --weights int8 or bf16, or other chips
bind-serve-format-nowhere = no GPU of the { $n } instance types searched runs { $weights } weights under { $engine } (vLLM serves MXFP4 from compute capability 8.0, SGLang and TensorRT-LLM from 9.0, the static engine not at all): use --weights bf16 (the checkpoint dequantized) or int4, or other chips
bind-serve-int4-nowhere = no GPU of the { $n } instance types searched has an int4 kernel under { $engine } (it needs compute capability { $min }): use --weights int8 or bf16, engine vllm (GPTQ from 6.0), or chips of compute capability { $min } or later
bind-serve-awq-nowhere = no GPU of the { $n } instance types searched loads AWQ under { $engine } (AWQConfig.get_min_capability: compute capability 7.5): use --weights gptq (its exllama kernel loads from 6.0), int8 or bf16, or chips of compute capability 7.5 or later
bind-serve-no-fit = no instance type meets the latency targets with the model in memory: relax --ttft/--tpot, allow quantization, or more GPUs per node
bind-serve-no-fit-best = no instance type meets the latency targets with the model in memory: the fastest first token any type reaches is { $ttft } s ({ $ttft_at }), the fastest output token { $tpot } ms ({ $tpot_at }), each for one request alone; relax --ttft/--tpot to those, allow quantization, or more GPUs per node
bind-serve-no-memory = no instance type holds the weights and one request's KV cache in one node's GPUs (tensor parallelism up to 8, within one node): allow quantization (--weights), shorten --input-tokens/--output-tokens, or choose types with more GPU memory per node
bind-serve-advice-at = closest configuration: { $at }
plan-serve-advice-head = vLLM would start there with any one of these changes (the rest as planned):
plan-serve-advice-len = requests of { $len } tokens or fewer (--input-tokens plus --output-tokens, which the plan takes as vLLM's max_model_len), at gpu_memory_utilization { $util } and vLLM's max_num_seqs { $seqs }
plan-serve-advice-seqs = vLLM's max_num_seqs at { $seqs } or fewer, keeping requests of { $len } tokens: a launch setting (vllm serve --max-num-seqs { $seqs }) that plan does not size, so this plan stays refused; size it with estimate --max-num-seqs { $seqs } (the profile run's sampler warm-up covers min(max_num_seqs, max_num_batched_tokens) requests)
plan-serve-advice-util = gpu_memory_utilization = { $util } or more under [serve] in the workload file (-w) (the share of the GPU vLLM may take; nothing else may use it)
billing-mix-note = { $nodes ->
    [one] 1 node
   *[other] { $nodes } nodes
} × { $months ->
    [one] 1 whole month
   *[other] { $months } whole months
} subscribed (¥{ $months_cny }), then { $hours } h { $rest } at ¥{ $price }/h per node (¥{ $rest_cny }); no refund assumed for a subscription ended early (no source states one)
bind-interruptions = { $what }: { $why }
bind-interruptions-beside = { $n ->
        [one] 1 plan was
       *[other] { $n } plans were
    } refused for their interruptions, the first { $what }: { $why }
bind-stalls-beyond-bound = each checkpoint stalls training { $write_s } s and one is taken every { $interval } min, so the stalls would make the job take more than { $max }× its compute time: raise checkpoint_interval_hours (--set checkpoint_interval_hours=1), save asynchronously (checkpoint_stall_fraction), or use faster storage
bind-failures-beyond-bound = { $per_day } failures a day across its GPUs (GPUs × failure_rate_per_gpu_hour), each a { $restart }-minute restart, would make the job take more than { $max }× its uninterrupted time or never finish (Daly's expected time under exponential failures): too many GPUs for the failure rate; use fewer GPUs (--max-nodes), or a lower failure_rate_per_gpu_hour / failure_restart_minutes if your cluster measures them
spot-beyond-bound = spot left out: { $per_hour } preemptions an hour ({ $nodes } nodes × --preemption-rate), each a { $restart }-minute restart, would make the job take more than { $max }× its uninterrupted time or never finish: the spot rate is too high for this many nodes; use on-demand or monthly billing, or fewer nodes
billing-break-even = break-even at { $breakeven } h of use per month ({ $share }% of a month): below that, on-demand is cheaper; this job uses { $hours } h
billing-break-even-reuse = break-even at { $breakeven } h of use per month ({ $share }% of a month): below that, on-demand is cheaper; this job uses { $hours } h + { $reuse } h/month of expected reuse
billing-break-even-full = break-even at { $breakeven } h of use per month ({ $share }% of a month): below that, on-demand is cheaper; this job runs { $duration } without a break ({ $month } h in each whole month)
billing-monthly-only = monthly only: billed { $months ->
    [1] a whole month
   *[other] { $months } whole months
} per node for { $hours } h of use (no hourly price known); ranked after plans with an hourly price
billing-consecutive-periods = bought as { $parts } months per node, renewed as each period ends (the longest period the provider's API accepts is { $longest } months)
bind-unpriced-billing-left-out = { $n } plan(s) on types with no { $billing } price in the catalog were left out: they cannot be checked against the budget under --billing (import that price with `gpuplan catalog import`, or use --billing auto)
warn-train-dequantized = the checkpoint ships { $weights } (its config's quantization_config); training loads it dequantized to bf16 (transformers: Mxfp4Config(dequantize=True) for MXFP4), so the base weights are sized as the task stores them (16-bit; QLoRA re-quantizes the bf16 weights to NF4), not in { $weights }
warn-train-unread-checkpoint = the checkpoint's quantization_config.quant_method is { $method }, a format gpuplan does not read; the weights are sized as the job loads them (at its precision, i.e. dequantized; QLoRA's base as NF4 re-quantized from 16-bit), not as stored
warn-train-bnb-base = the checkpoint ships { $weights } weights (bitsandbytes, from its config's quantization_config), which is what QLoRA loads: the frozen base is sized as stored, { $bits } bits per weight
warn-bnb-skipped-linears = the checkpoint's llm_int8_skip_modules keeps { $count } decoder module(s) in 16 bits ({ $modules }); gpuplan sizes every decoder linear at the checkpoint's bits, so their weights are under-estimated

# Pricing notes: a monthly row's break-even, a spot row's interruptions, how an estimated price
# was made, why a storage class (money.rs, catalog/mod.rs).
billing-spot-note = expected { $n } preemptions (rate { $rate }/node-hour); checkpoint every { $min } min ({ $write } s to write); +{ $pct }% time
price-spot-estimate = { $pct }% of the on-demand price (tunable spot_price_fraction; Tencent documents spot at about 10–20% of pay-as-you-go, Alibaba says it can fall to 10%); import real spot prices with `gpuplan catalog import`
price-spot-od-method = ; on-demand price: { $method }
price-per-gpu-estimate = { $gpus } GPU(s) × the per-GPU rate of { $from } (¥{ $cny } for { $n } GPU(s)), the listed same-chip type with the closest GPU count; CPU, RAM and network differences are ignored
storage-why = { $class } reaches { $mbs } MB/s at { $cap } GiB (needed: { $read } of reads{ $shared ->
    [yes] , shared by all nodes
   *[no] {""}
}; dataset { $data } GiB + 3 checkpoints of { $ckpt } GiB)
