# The exporter (crates/gpuplan/src/export, cmd/export.rs): what `plan --export` / `export` print.

export-done = exported plan #{ $pick } ({ $nodes } × { $instance }) to { $dir }: { $n } files; start with README.txt
export-not-json = { $path } is not JSON: export reads the output of `gpuplan plan --format json`
export-exists = { $n } file(s) of the bundle already exist in { $dir } ({ $names }): pass --force to overwrite them (nothing was written)
export-not-a-file = { $path } exists and is not a file: move it away or export to another directory (nothing was written)
export-cannot-write = cannot write { $path } (nothing of the bundle was replaced)
export-cannot-move = cannot move { $tmp } to { $path }
export-cannot-yaml = cannot write YAML
export-cannot-chmod = cannot make { $path } executable
export-not-plan = not a plan document (kind = { $kind }): export reads the output of `gpuplan plan --format json`
export-schema-unsupported = plan JSON schema_version { $v } is not supported by this gpuplan ({ $version }; it reads { $supported }): re-create the plan with this version's `gpuplan plan --format json`
export-no-plans-key = plan JSON: `outcome.plans` is missing: export reads the output of `gpuplan plan --format json`
export-no-plan = the plan document holds no plan (the planner found none that meets the constraints: see `outcome.rejected`): nothing to export
export-pick = --pick { $pick }: the document holds { $n } plan(s); pick 1–{ $n } (rerun `gpuplan plan` with --top N for more)
export-train-xor-serve = { $at }: a plan has either `train` or `serve`: this one has { $has ->
    [both] both
   *[neither] neither
}
export-field-missing = plan JSON: `{ $field }` is missing
export-field-not-string = plan JSON: `{ $field }` is missing or not a string
export-field-not-ident = plan JSON: `{ $field }` = { $value } is not a plain identifier (letters, digits, . _ - /, at most 128): export refuses it rather than write it into a script
export-field-unsafe-text = plan JSON: `{ $field }` holds control or quote characters: export refuses it
export-field-not-count = plan JSON: `{ $field }` is missing or not a whole number
export-field-count-range = plan JSON: `{ $field }` = { $value } is outside { $min }–{ $max }
export-field-not-bool = plan JSON: `{ $field }` is missing or not true/false
export-field-not-number = plan JSON: `{ $field }` is missing or not a number
export-field-number-range = plan JSON: `{ $field }` = { $value } is outside (0, { $max }]
export-field-layout = plan JSON: `{ $field }`: TP { $tp } × PP { $pp } × CP { $cp } does not divide the plan's { $gpus } GPUs, so no launcher can place it: re-create the plan with `gpuplan plan --format json`
export-field-period = plan JSON: `{ $field }` = { $value } months is not a subscription period { $provider } accepts (months: { $allowed }): re-create the plan with this gpuplan version (`gpuplan plan --format json`)
export-plan-too-long = plan JSON: `{ $field }`: the plan runs { $hours } h ({ $years } years), longer than the { $max } h (about { $max_years } years) the export writes: a plan that long is a planning figure, not a deployment; re-plan with more nodes or fewer tokens
export-not-carried = note: the bundle's default launcher ({ $launcher }) does not carry these plan settings: { $keys } (README.txt lists them; set them in the training framework)

# The bundle's README.txt (export/readme.rs), in the run's language.
export-readme-title = gpuplan { $version } launch bundle
export-title = plan #{ $rank } of the document: { $model } { $job } on { $nodes } × { $instance } ({ $provider } { $gpu } × { $per_node } per node, { $billing })
export-title-no-price = no price known
export-readme-files = Files (JSON files cannot carry comments: their provenance is this README):
export-readme-training-head = Training settings the plan's memory and time assume (set the same in your training script):
export-readme-task = task { $task }{ $lora }, precision { $precision }, optimizer { $optimizer }
export-readme-lora = (LoRA rank { $rank }, targets { $targets }{ $dropout }{ $base })
export-readme-lora-dropout = , dropout { $d }
export-readme-lora-base = , base weights { $b }
export-readme-sequence = sequence length { $seq }, micro-batch { $mb } × { $ga } gradient-accumulation steps per GPU
export-readme-recompute = activation recomputation { $recompute }, attention { $attention }
export-readme-checkpoint = checkpoint every { $secs } s = { $steps } optimizer steps: { $basis }
export-readme-basis-spot = spot's interval (its preemption rate plus hardware and software failures), the billing this plan's hours and cost use
export-readme-basis-failures = the failures' interval (hardware and software interruptions of the whole job, no preemptions), the billing this plan's hours and cost use (on-demand or subscription)
export-readme-checkpoint-none = checkpoint interval: none written: the plan JSON has no interval for its billing (no `train.failures` off spot: failure_rate_per_gpu_hour = 0, or a plan from before gpuplan modelled failures); use your framework's default or re-create the plan
export-readme-ep =
    expert parallelism EP { $ep } with expert tensor parallelism { $etp } ({ $split ->
        [True] each expert split over the expert-TP ranks
       *[other] whole experts on each rank
    }): megatron_args.sh passes
    --expert-model-parallel-size { $ep } --expert-tensor-parallel-size { $etp }; with DeepSpeed-MoE set
    deepspeed.moe.layer.MoE(ep_size={ $ep }, enable_expert_tensor_parallelism={ $split }) in the model (launch.sh exports GPUPLAN_EP_SIZE)
export-readme-ep-deepspeed =
    This plan's expert parallelism is DeepSpeed-MoE's (the plan names the hugging_face stack: eager modules):
    launch.sh defaults to LAUNCHER=deepspeed (ds_config.json stage { $zero }, MoE layers with ep_size={ $ep });
    LAUNCHER=megatron runs Megatron-Core's fused modules, whose memory and time the plan did not assume{ $zero2 ->
        [yes] { " " }(and ZeRO-1 only: more memory than planned)
       *[no] {""}
    }.
export-readme-ep-none =
    This bundle cannot reproduce the plan: ZeRO-{ $zero } with EP { $ep } beside TP { $tp } × PP { $pp } × CP { $cp } ({ $stack } stack) is run by no launcher
    it writes (DeepSpeed-MoE refuses ZeRO-3; EP with TP/PP under DeepSpeed is Megatron-DeepSpeed's, not exported).
    LAUNCHER=megatron runs ZeRO-1 (more memory than planned); LAUNCHER=deepspeed has no TP/PP/CP.
export-readme-not-carried = Plan settings the default launcher (LAUNCHER={ $launcher }) does not carry (the plan's time assumed them):
export-nc-zero1-broadcast = parallel.zero1_broadcast = { $v } (InternEvo's one broadcast per owning rank; the launchers' optimizers all-gather)
export-nc-grad-bucket-elements = parallel.grad_bucket_elements = { $e } (gradient elements per data-parallel bucket; set it in the training framework)
export-nc-grad-bucket-sync = parallel.grad_bucket_sync = true (each bucket's reduction waits for the previous one, InternEvo's synchronize)
export-nc-optimizer-dtype = training.optimizer_dtype = bf16 (the plan's memory counted the Adam master weights and moments at 2 B each: { $moments } Megatron-LM's master weights stay fp32, since --main-params-dtype takes fp32 or fp16 only, so the job needs more memory than planned; NeMo's distributed_fused_adam with optim.dtype: bf16 holds all three in bf16)
export-nc-moments-megatron = megatron_args.sh keeps the Adam moments in bf16 (--use-precision-aware-optimizer --exp-avg-dtype bf16 --exp-avg-sq-dtype bf16), but
export-nc-moments-fp32 = this launcher keeps the Adam moments in fp32 and
export-nc-megatron-lora = training.task = { $task } (LoRA rank { $rank }: Megatron-LM's pretrain_gpt.py has no LoRA and would train every parameter, beyond the plan's memory; run a PEFT entry point of Megatron-Core with megatron_args.sh, e.g. ms-swift's `megatron sft --train_type lora` or Megatron-Bridge's LoRA recipes)
export-nc-a2a-overlap = parallel.moe_a2a_overlap = true (Megatron-Core's EP all-to-all overlap: LAUNCHER=megatron carries it)
export-nc-dispatcher = parallel.moe_dispatcher = { $d } (a Megatron-Core token dispatcher: LAUNCHER=megatron carries it)
export-nc-stage-split = { $split } (of { $layers } layers at PP { $pp }: Megatron-Core refuses this split, so megatron_args.sh leaves out --decoder-first/last-pipeline-num-layers and Megatron-LM splits the layers evenly, which needs them to divide by PP; state a split it builds: { $why })
export-nc-even-split = --pipeline-model-parallel-size { $pp } (of { $layers } layers, no stage sizes stated: Megatron-Core refuses to start; plan again or state a split it builds: { $why })
export-nc-stage-split-unchecked = { $split } (at PP { $pp }: the plan does not record the model's layer count, as plans written before it was added do not, so the split cannot be checked against Megatron-Core's rules and megatron_args.sh leaves out --decoder-first/last-pipeline-num-layers; plan again to export it)
export-readme-region =
    Region: the plan names none (its price is for no stated region). Set it before running
    the cloud script, e.g. `{ $var }=<region id> bash cloud/create-instances.sh`, or plan again
    with --region; the script stops until { $var } is set.
export-readme-steps-head = From plan to running job:
export-readme-step-dry-run = bash cloud/create-instances.sh                  # dry run: the provider checks the order, creates nothing
export-readme-step-create = DRY_RUN=false bash cloud/create-instances.sh    # creates the { $n } instance(s)
export-readme-step-copy = copy this directory to every node (or to the shared storage the plan chose)
export-readme-step-serve = MODEL=<repo or path> bash serve-vllm.sh                 # on each node
export-readme-step-litgpt = NODE_RANK=<0..{ $last }> MASTER_ADDR=<node 0> bash launch.sh   # on each node: LitGPT's CLI with litgpt.yaml (set its checkpoint_dir, and data: LitGPT's default is Alpaca)
export-readme-step-train = NODE_RANK=<0..{ $last }> MASTER_ADDR=<node 0> TRAIN_SCRIPT=train.py bash launch.sh   # on each node
export-readme-step-logs = watch the logs of node 0
export-readme-k8s =
    On Kubernetes (a cluster with these nodes): kubectl create configmap { $slug } --from-file=. ;
    kubectl apply -f { $job }{ $volcano ->
        [yes] { " " }(or k8s/volcano-job.yaml)
       *[no] {""}
    }   (the bundle is mounted at /gpuplan in the pods)
export-readme-placeholders =
    Placeholders: every value the plan or a stored provider document does not give is
    marked (REPLACE … in manifests, `${"{"}VAR:?…{"}"}` in scripts, which stop until VAR is set).
    The cloud command runs with the provider's dry-run flag on: set DRY_RUN=false to create.
