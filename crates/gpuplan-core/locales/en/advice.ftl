# Advice rules (plan/advice.rs, docs/advice.md). Decimal numbers arrive formatted; counts as numbers.

adv-multi-node-without-rdma = { $nodes } nodes without RDMA: gradient sync runs over TCP at { $bw } per node: { $comm } per step ({ $share } of the step), { $exposed } of it not hidden behind compute ({ $exposed_share } of the step). TCP also adds latency and jitter; pick an RDMA (eRDMA/RoCE/IB) type for multi-node training.
adv-tp-over-pcie = TP={ $tp } over PCIe: the per-layer all-reduces take { $share } of the step. Prefer NVLink types for TP, or trade TP for ZeRO/PP.
adv-litgpt-bf16-mixed = LitGPT in its default bf16-mixed keeps the frozen base in fp32 and saves a bf16 cast of every frozen weight for backward ({ $copies }; its LM head once per 128-token chunk). `--precision bf16-true` (here `--precision pure_bf16`) stores the base in bf16 and needs no casts: about { $saved } less per GPU.
adv-zero3-over-slow-link = ZeRO-3/FSDP re-gathers parameters every micro-batch over { $link }; exposed communication is { $share } of the step. Larger micro-batches or ZeRO-2 help if memory allows.
adv-link-between-nodes = { $name } between nodes ({ $bw })
adv-link-inside-node = { $name } inside the node ({ $bw })
adv-nvlink-needed = { $share } of the step is gradient traffic between the { $gpus } GPUs over PCIe; an NVLink/NVSwitch type would cut it several-fold.
adv-storage-class = Storage: the input pipeline needs { $read }; { $why }{ $for_writes ->
    [yes] ; bought larger than the data needs, for faster checkpoint writes: the GPU time they stall costs more than the capacity
   *[no] {""}
}. A { $ckpt_gib } GiB checkpoint takes { $write_s } s to write at { $mbs } MB/s.{ $object ->
    [yes] { " " }Object storage suits datasets read sequentially; stage checkpoints on a file system.
   *[no] {""}
}
adv-checkpoint-stalls = Checkpoint writes take about { $share } of the job's time (~{ $hours } h; named above { $limit }): each { $ckpt_gib } GiB checkpoint, one every { $interval } min, stalls training { $stall_s } s while it is written at { $mbs } MB/s{ $assumed ->
    [yes] {" "}(assumed, a single cloud disk's order of magnitude: the catalog sizes no storage class of this provider for this plan)
   *[no] {""}
}. Save asynchronously (PyTorch torch.distributed.checkpoint.async_save, Megatron-LM --async-save) so that only the copy to host memory stalls, or checkpoint less often.{ $longer ->
    [yes] {" "}One write stalls training longer than the { $interval } min between checkpoints, so that schedule cannot be kept: for this stall and the plan's failure rate ({ $per_day } interruptions per day), Daly's optimum is one checkpoint every { $daly_h } h, stalling about { $daly_share } of the time (the hours above still count one every { $interval } min).
   *[no] {""}
}
adv-checkpoint-interval = Your checkpoint interval, one every { $interval } min (checkpoint_interval_hours), is the one this plan's hours pay: in Daly's model it costs about { $cost_h } h of checkpoint stalls and lost work over this job ({ $per_day } interruptions per day). Daly's optimum for this write and failure rate is one every { $daly } min, about { $daly_cost_h } h: { $extra_h } h more at your interval. Leave checkpoint_interval_hours unset to plan with the optimum.
adv-storage-tiering = Cheaper hot/cold split: keep the { $object_gib } GiB dataset on { $object } (¥{ $object_cny }/month; it sustains the read rate) and a { $cache_gib } GiB { $cache } for the hot working set and the checkpoints (¥{ $cache_cny }/month): ¥{ $split }/month instead of ¥{ $whole } for { $whole_gib } GiB of { $class }. Read through a cache layer (JindoFS/Fluid, ossfs/obsfs/cosfs with a local cache, or the file system's data flow from object storage).
adv-image-decode-cores = Image decode/augmentation at { $rate } samples/s needs about { $cores } host vCPUs ({ $per_core } img/s per vCPU){ $have ->
    [short] ; this plan has { $vcpus } vCPUs: too few, the GPUs will wait. Use GPU decoding (NVIDIA DALI) or a type with more vCPUs
    [capped] , the rate this plan's { $vcpus } vCPUs decode: they set its pace and the GPUs wait for them. Use GPU decoding (NVIDIA DALI) or a type with more vCPUs
    [enough] ; this plan has { $vcpus } vCPUs
   *[unknown] ; vCPU count not documented for this type
}.
adv-spot-fits = Spot fits this interruptible job: expected { $preemptions } preemptions at { $rate }/node-hour, checkpoint every { $interval_min } min (Daly's optimum interval, { $write_s } s per write), { $overhead }% time, expected ¥{ $cny }.
adv-spot-not-interruptible = Spot is not recommended: the job is not marked interruptible (--interruptible). If it checkpoints and resumes, spot would cost about ¥{ $cny }.
adv-spot-past-deadline = Spot is no option here: with { $preemptions } expected preemptions and their restarts it would take about { $time }, past the --deadline of { $deadline }{ $interruptible ->
    [yes] ; the plan uses a billing mode that meets it
   *[no] {""}
}.
adv-deadline-margin = Deadline margin: the plan takes about { $time } of the { $deadline } deadline, { $pct }% to spare, within the typical error of modelled whole-run times on published runs (about { $margin }%). Measure { $unit }/s in the first hours against the plan's figure; if it runs slower, move to a faster plan early (--optimize time, or more GPUs). To leave the { $margin }% margin, a plan about { $need }% faster is needed.
adv-memory-headroom = Only { $left } GiB of { $have } GiB left per GPU: allocator fragmentation or a longer sample can OOM. Keep one micro-batch size smaller in reserve.
adv-loss-memory = The logits and the loss hold { $gib } of the { $total } GiB per GPU ({ $pct }): HF Transformers builds the logits over the whole vocabulary and upcasts them to fp32. A fused linear cross-entropy never builds them (Liger Kernel's fused_linear_cross_entropy; in LLaMA-Factory `enable_liger_kernel: true`) and frees most of this, at some speed (Liger's README: it trades time for memory, for when memory is the bottleneck). Plan again with --chunked-loss (torchtune's chunked loss, which gpuplan models) to see whether a larger micro-batch or fewer GPUs then fit.
adv-first-hour = First hour: expect ~{ $rate } { $unit }/s per GPU (MFU { $mfu }) and { $gib } GiB per GPU{ $ascend ->
    [yes] { " " }(watch NPU utilisation and memory with `npu-smi info`)
   *[no] {""}
}. If GPU utilisation stays below ~80% the input pipeline is short ({ $framework ->
    [mindspore] raise the dataset's num_parallel_workers
   *[other] raise DataLoader workers, pin memory
}, faster storage); if memory is far below, raise the micro-batch; if it OOMs, turn on activation recomputation or raise the { $framework ->
    [mindspore] optimizer-state sharding (MindSpore optimizer parallel, the ZeRO equivalent)
   *[other] ZeRO stage
}.
adv-auto-release = The job ends after ~{ $time }: set an automatic release/deletion time on the instances, or script their release after the final checkpoint is uploaded; idle { $ascend ->
    [yes] NPUs
   *[no] GPUs
} are billed.
adv-latency-margin = Latency margin: { $what } { $got } ms{ $loaded ->
    [yes] {" "}under the plan's peak load
   *[no] {""}
} meets the { $target } ms target by only { $pct }%, within the model's typical error on published runs (about { $margin }%). Benchmark one replica at batch { $batch }{ $loaded ->
    [yes] {" "}under the plan's peak load per replica
   *[no] {""}
} before committing; if it misses, cap the engine's concurrent sequences below { $batch } (vLLM --max-num-seqs) and add a replica.
adv-autoscaling = Replicas: { $load ->
    [rate] the stated load needs { $needed } (at { $rps } req/s each); the plan runs { $replicas } ({ $peak }× peak headroom, at least { $min } for availability
    [closed] the stated { $concurrency } concurrent { $concurrency ->
        [one] request needs
       *[other] requests need
    } { $needed } (each holding at most { $slots } in flight, its batch slots); the plan runs { $replicas } ({ $peak }× peak headroom, at least { $min } for availability
   *[no] no load was given (--rate/--concurrency), so the plan runs { $replicas } (--min-replicas { $min }), at most { $rps } req/s each (no peak headroom without a load
}{ $single ->
    [yes] ; one replica is a single point of failure: a node failure or an upgrade takes the service down
   *[no] {""}
}). { $range ->
    [yes] Autoscale between { $floor } and { $replicas }
   *[no] Keep { $floor } running and autoscale above it for larger peaks
}: { $kv ->
    [yes] scale on queue length (vLLM `vllm:num_requests_waiting` > 0 for 1–2 min) or KV-cache use (`vllm:gpu_cache_usage_perc` > 0.8), not on GPU utilisation, which continuous batching keeps high
   *[no] scale on queue length or request latency, not on GPU utilisation, which batching keeps high
}. New replicas need minutes to load weights: keep the floor warm.
adv-filing-duty = Serving a generative model to the public in mainland China falls under the Interim Measures for the Management of Generative AI Services (2023): plan for the algorithm/model filing (备案) and content-safety duties before launch.
adv-placement-serve = { $replicas } replicas on { $gpus } { $gpus ->
    [one] GPU
   *[other] GPUs
} per instance: run one server per GPU (or per TP group) behind a load balancer.
adv-placement-train = Multi-node: create all nodes in one zone, VPC and subnet, with topology-aware placement (Alibaba deployment set, Huawei same AZ/cluster, Tencent HCC cluster), and { $ascend ->
    [yes] check the NPUs' RoCE ports are up (`hccn_tool -i <npu> -link -g` on every NPU) and that HCCL sees every node (rank table / HCCL_IF_IP)
   *[no] check the RDMA NICs are up (ibv_devinfo)
} before launching.
adv-topology-check-ascend = Run `npu-smi info` on the first node (every NPU listed, health OK) and `npu-smi info -t topo` for the NPU topology: on { $id } expect { $nvlink ->
    [yes] HCCS links
   *[no] PCIe paths
} between NPUs.
adv-topology-check-nvidia = Run `nvidia-smi topo -m` on the first node: for { $id } expect { $nvlink ->
    [yes] NV# links
   *[no] PIX/PXB (PCIe)
} between GPUs; 'SYS' between GPUs means traffic crosses CPU sockets.
adv-host-cpu-ratio = { $per } vCPUs per GPU, below the usual 4 per GPU for data loading and framework threads.
adv-host-ram-ratio = { $ram } GiB host RAM for { $gmem } GiB of GPU memory{ $offload ->
    [none] {""}
   *[other] { " " }(offload needs { $offload } GiB)
}: below 1.5× leaves little room for the data pipeline, pinned buffers{ $train ->
    [yes] { " " }and checkpoint staging
   *[no] { " " }and model loading
}.
adv-ascend-migration = Ascend: runs on CANN, not CUDA. { $framework ->
    [mindspore] MindSpore runs natively.
    [pytorch] PyTorch needs the torch_npu adapter (`.cuda()` → `.npu()`, NCCL → HCCL).
   *[other] Check the framework's NPU support.
} Budget a migration: replace CUDA-specific kernels and ops, check operator coverage, and use Huawei's images with matching CANN / torch_npu versions.
adv-vendor-image-ascend = Use Huawei's Ascend image (ModelArts / Ascend Hub) with the NPU driver and firmware, CANN and { $fw } preinstalled; keep the driver, CANN, { $fw } and HCCL versions identical on every node (check with `npu-smi info` and the CANN version file).
adv-vendor-image-amd = AMD Instinct: use ROCm builds of the framework and RCCL.
adv-vendor-image-nvidia = Use the provider's GPU image with the driver, CUDA, cuDNN and NCCL preinstalled (do not install drivers by hand); keep the NCCL and CUDA versions identical on every node.
adv-consumer-gpu = Consumer GPU: NVIDIA's GeForce driver licence restricts data-centre deployment, there is no NVLink or ECC, and some providers limit commercial use; check the provider's terms.
adv-price-provenance = Cost uses the { $kind ->
    [list] list
    [user] your
    [estimate] estimated
   *[api] fetched
} { $billing } price ¥{ $cny } ({ $region }, { $as_of }){ $method ->
    [none] {""}
   *[other] ; method: { $method }
}. Check today's price in the console or import it (`gpuplan catalog import`).
adv-monthly-price-only = Only a monthly (subscription) price is known for { $id }: this { $hours } h job is charged ¥{ $cny } for whole months, so plans of very different length cost the same. Pay-as-you-go is usually far cheaper for a short job: get its price (`gpuplan prices fetch { $provider } --instance { $id } --billing on-demand`, or `gpuplan catalog import`) before comparing.
adv-subscription-break-even = Subscription: { $note }.
adv-price-unknown = No price is known for this type (no published list price was found): import yours with `gpuplan catalog import` to compare cost.
adv-region-undocumented = Regions not documented for { $id }: check availability in { $regions } (console instance-type-by-region page or the provider's stock API) before relying on this plan.
price-method-other-region = price from { $from }, used for { $wanted } ({ $kind ->
    [list] list price
    [user] your price
    [api] fetched price
   *[estimate] estimate
} of another region: prices differ by region, check { $wanted } in the console){ $earlier ->
    [none] {""}
   *[other] ; { $earlier }
}
adv-price-other-region = Price from { $from }, used for { $regions }: an estimate (¥{ $cny }, { $as_of }); prices differ by region, check the { $regions } price in the console or import it.
adv-access-restricted = { $id } ({ $family }) is not freely orderable: access = { $access } ({ $note }). Apply or open the ticket before you count on it, and keep a fallback.
adv-access-note-default = see the provider's docs
adv-stock-reported = The provider's stock API reported { $id } as low on stock when it was imported ({ $detail }): create the instances early or keep the fallbacks below at hand.
adv-stock-no-detail = no zone detail
adv-unverified-facts = Catalog facts behind this plan are { $instance } (instance) / { $chip } (chip): confirm the { $ascend ->
    [yes] NPU
   *[no] GPU
} model and links in the console.
adv-published-misses = Unchecked for this model: { $k } of the { $n } published { $serving ->
    [yes] serving-latency runs of { $model } with { $weights } weights on { $gpu }
   *[no] training-throughput runs of { $model }
} are recorded misses of gpuplan's estimate ({ $ids }; docs/accuracy.md, "Known misses"), so this plan's { $serving ->
    [yes] latency
   *[no] time and cost
} may be far off. Benchmark { $serving ->
    [yes] one replica at the target load
   *[no] the first hour (tokens/s per GPU)
} before committing the budget.
adv-long-job-no-deadline = No deadline was set, so the cheapest plan ranks first: it runs { $days }. { $nodes } × { $id } finishes in { $faster } for ¥{ $cost } (+{ $extra }); set --deadline to rank plans that meet it by cost.
adv-stock-fallbacks = If { $id } is out of stock in your zone: { $list }.
adv-fallback = { $nodes } × { $id } ({ $provider }{ $other ->
    [yes] , other provider
   *[no] {""}
}{ $serve ->
    [yes] {""}
   *[no] , { $hours }
}{ $cost ->
    [none] , no known price
   *[other] , { $cost }{ $serve ->
        [yes] /month
       *[no] {""}
    }
})
adv-fallback-sep = ;{" "}
adv-quantization-changes = Quantization changes the answer: { $weights } weights cost ¥{ $cny }/month; the best { $base } plan, { $nodes } × { $id }, costs ¥{ $other }/month ({ $ratio }×). Validate quality on your prompts first.
adv-weights-native = { $weights } (native)
adv-quantization-unpriced = Quantized weights ({ $weights }): the best plan with { $base } weights, { $nodes } × { $id }, has no known price, so the cost of quantizing cannot be compared (import its price: `gpuplan catalog import`). Validate quality on your prompts first.
adv-quantization-only = Only quantized weights ({ $weights }) meet the targets in memory here: no bf16 plan was feasible. Validate quality first.
adv-quantization-would-cut = Quantizing to { $weights } would cut the cost to ¥{ $other }/month on { $nodes } × { $id } ({ $pct }% less), if quality holds.
adv-big-card-small-inference = Inference on { $gpu }: ¥{ $cost } per 1k requests; { $nodes } × { $id } costs ¥{ $other }{ $cheaper ->
    [yes] : the smaller cards are cheaper per request.
   *[no] , so the larger card is the cheaper choice here.
}

## plan/hints.rs: what would change a poor top plan
hint-poor-plan = The top plan is { $why }. What would change it: { $list }.
hint-why-comm = communication-bound ({ $bottleneck })
hint-why-mfu = at MFU { $mfu }%
hint-gain = { $what }: about { $pct }% less time ({ $hours } h instead of { $old } h)
hint-alt-global-batch = --global-batch { $batch } (4× more samples per step hides gradient sync; retune the learning rate)
hint-alt-megatron = --profile megatron (tensor/pipeline parallelism instead of ZeRO alone)
hint-alt-rdma = an RDMA type: { $nodes } × { $id }
