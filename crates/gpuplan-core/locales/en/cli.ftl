# Command-line errors raised while the flags are parsed (clap), and the CLI's own errors.

cli-err-unknown-argument = unexpected argument '{ $arg }'
cli-err-invalid-value = invalid value '{ $value }' for '{ $arg }' (possible values: { $valid })
cli-err-missing-argument = the required argument { $arg } was not given
cli-err-invalid-subcommand = unknown subcommand '{ $sub }'
cli-err-missing-subcommand = a subcommand is needed: { $subs }
cli-err-value-validation = invalid value '{ $value }' for '{ $arg }'
cli-err-conflict = '{ $arg }' cannot be used with '{ $other }'
cli-err-suggest = tip: did you mean '{ $s }'?
cli-err-help = For more information, try '--help'.
cli-err-number = { $flag } `{ $value }`: { $accepted }, e.g. { $flag } { $example }
cli-err-number-suffix = { $flag } `{ $value }`: { $accepted }, e.g. { $flag } { $example }; a suffix is not read here, as k and M are ambiguous: write { $decimal } or { $binary } in full
cli-accepts-whole = give a whole number in digits, without a unit or suffix
cli-accepts-number = give a number in digits (a decimal point or an exponent such as 1e-3 allowed), without a unit
cli-accepts-amount = give a number, optionally with a suffix k, M, B or T (10^3, 10^6, 10^9, 10^12)
cli-accepts-amount-positive = give a positive, finite amount (k, M, B, T = 10^3, 10^6, 10^9, 10^12)
cli-accepts-latency = give a time in seconds (0.05) or with a unit, ms or s (50ms, 2s)
cli-err-no-model = no model given: pass --model NAME (see `gpuplan models`) or --model-config PATH/config.json
cli-err-bad-word = invalid --{ $field } `{ $value }`: { $why }
cli-err-in-file = in { $file }
cli-err-set-form = --set `{ $value }`: expected NAME=VALUE, e.g. --set fragmentation=0.05
cli-err-set-number = --set { $name }: `{ $value }` is not a number
cli-err-deadline = --deadline `{ $value }`: expected hours (24), or 24h / 30d / 90m
cli-err-framework-megatron = --framework names the software framework (pytorch, tensorflow, jax, mindspore, paddlepaddle); Megatron-LM is a training profile: use --profile megatron
cli-err-dataset-size = --dataset-size `{ $value }`: expected a size such as 30TB, 500GiB or 1.5e12 (bytes)
cli-err-dataset-size-range = --dataset-size `{ $value }`: must be a positive size up to 1 EB
cli-err-spot-needs-interruptible = --billing spot needs --interruptible: spot instances are reclaimed, so the job must checkpoint and resume
cli-err-serving-flag = { $flag } is a serving flag: add --task inference (or remove { $flag } to plan training)
cli-err-training-flag = { $flag } is a training flag: it does nothing with --task inference (remove it, or give a training --task)
cli-err-serving-flag-estimate = { $flag } is a serving flag: add --task inference, or remove it (a training step's sequences per GPU are --micro-batch)
cli-err-tokens-and-samples = give either --tokens (the total) or --samples with --epochs, not both: --tokens would win and --samples would be ignored
cli-err-epochs-with-tokens = --epochs counts passes over --samples and is not applied to --tokens: give --samples N --epochs { $e }, or the total as --tokens ({ $e } passes over { $tokens } tokens = --tokens { $total })
cli-err-sample-bytes-unknown = { $model }: the stored size of one training sample is not known ({ $input }: an image file and a precomputed latent differ), so the data path and the storage cannot be sized: give --bytes-per-sample BYTES (or [training] bytes_per_sample)
cli-err-serve-flag-kind = { $flag } does not apply to { $model }: { $kind ->
    [opaque] it answers each request with one forward pass over its input, no tokens
   *[other] it is an encoder, answering each request with one forward pass, no generated tokens
} (its latency target is --ttft)
cli-err-unknown-gpu = { $flag } { $value }: no accelerator in the catalog matches (an id or a name prefix); known ids: { $list }
cli-err-unknown-region = { $flag } { $value }: no instance type or price in the catalog names this region{ $close ->
    [none] {""}
   *[other] {" "}(did you mean { $close }?)
}; known: { $known }. Types that name no region (the built-in catalog's Alibaba Cloud and Huawei Cloud types) are listed only without { $flag }
cli-err-gpu-chips = --gpu { $value } names { $families } chips, which --chips { $chips } leaves out: add them, e.g. --chips { $wanted } (the default is nvidia)
cli-err-gpu-no-instance = --gpu { $value }: no instance type in the catalog carries this accelerator, so there is nothing to plan; drop --gpu, or add its instance types in a catalog file (--catalog FILE; `gpuplan catalog validate FILE` checks it)
cli-err-unknown-family = --family { $value }: no instance family of that name in the catalog{ $close ->
    [none] {""}
   *[other] ; did you mean { $close }?
} (`gpuplan catalog instances` lists them)
note-columns-dropped = Left out at this width: { $cols } (`--wide` shows every column).
cli-err-min-replicas = min_replicas { $value }: give 1 to { $max } (--min-replicas or [serve] min_replicas)
cli-err-peak-factor = peak_factor { $value }: give a multiple of the stated load from 1 to 100, e.g. 1.5 (--peak-factor or [serve] peak_factor)
cli-err-steps-not-diffusion = --steps (or [serve] steps) counts the denoising steps of a diffusion model; { $model } is not one: drop it
cli-err-guidance-not-diffusion = --guidance (or [serve] guidance) sets the classifier-free guidance of a diffusion model; { $model } is not one: drop it
cli-err-weights-plan = --weights `{ $value }`: use bf16, fp16, fp8, int8, int4 (AWQ/GPTQ 4-bit at group 128; also awq, gptq; int4-g<N> for a quantisation group of N weights, N from 1 to { $max }, as the plan table prints it), mxfp4, or the bitsandbytes label a plan printed (bnb-4bit, bnb-4bit-dq, bnb-8bit)
cli-err-weights-estimate = invalid --weights `{ $value }`: use fp32, bf16, fp16, fp8, int8, int4 (AWQ/GPTQ 4-bit at group 128; also awq, gptq; int4-g<N> for a quantisation group of N weights, N from 1 to { $max }, as plan prints it), mxfp4, the bitsandbytes label a plan printed (bnb-4bit, bnb-4bit-dq, bnb-8bit), or bits per weight such as 4.5 (GGUF Q4_K)
cli-err-weights-bnb = --weights `{ $value }` names a bitsandbytes checkpoint's stored format, whose block sizes are read from its config.json `quantization_config`; { $model } stores { $stored }: give --model-config the config.json of a { $value } checkpoint, or leave --weights out to size the model as stored
cli-err-top = invalid --top { $value }: plans to show, 1–{ $max }
cli-err-max-price-age = invalid --max-price-age `{ $value }`: give days, e.g. 30d (or weeks, e.g. 4w)
cli-err-today = GPUPLAN_TODAY `{ $value }`: not a date; write it YYYY-MM-DD, e.g. GPUPLAN_TODAY=2026-12-03, or unset it to use the system clock
cli-err-instance-unmapped = instance `{ $id }` has an unmapped GPU or is a vGPU slice: estimate on --gpu instead
cli-err-similar-families = { $error }
    families with a similar name: { $hints } (`gpuplan catalog show FAMILY` lists a family)
serve-listening = gpuplan serve: listening on http://{ $at }/ (API under /api/v1; no authentication{ $reach ->
    [loopback] , loopback only)
   *[network] : reachable from the network)
}
serve-stopped = gpuplan serve: stopped
serve-shutting-down = gpuplan serve: shutting down (finishing requests in flight)
serve-err-not-loopback = --bind { $bind }: not a loopback address; the server has no authentication, so anyone who can reach it can use it: add --allow-remote to bind there anyway
serve-err-runtime = cannot start the server's runtime
serve-err-listen = --bind { $bind }: cannot listen there
cli-warn-both = both { $name_key } `{ $name }` and { $config_key } { $config } are given: { $config_key } wins, { $name_key } is ignored
cli-warn-tpot-seconds = --tpot { $value } is { $value } seconds per output token; if you meant milliseconds, write --tpot { $value }ms
cli-err-catalog-dir-unreadable = cannot read the user catalog directory { $dir }: fix its permissions, set GPUPLAN_CONFIG_DIR, or pass --no-user-catalog
cli-err-catalog-dir-not-dir = the user catalog directory { $dir } is not a directory: fix its permissions, set GPUPLAN_CONFIG_DIR, or pass --no-user-catalog
cli-warn-more-in-row = { $n ->
    [one] {" "}(and 1 more problem in this row)
   *[other] {" "}(and { $n } more problems in this row)
}
cli-warn-row = { $file }: { $location }: { $message }{ $more }{ $tail }
cli-warn-row-skipped = {" "}— row skipped
cli-warn-row-left-out = {" "}— left out of the rewritten file
cli-note-other-findings = { $n ->
    [one] 1 other catalog finding in user files: see `gpuplan catalog validate`
   *[other] { $n } other catalog findings in user files: see `gpuplan catalog validate`
}
import-left-out = left out { $what }
import-gpu-unknown = { $id }: GPU `{ $gpu }` is not known; imported as `unknown:{ $gpu }` and kept out of planning. Map it with a user catalog line `[gpu_aliases]` "{ $gpu }" = "<gpu id>"
import-not-cny = { $file }: prices are in { $currency }, not CNY; skipped
import-next-token = { $file }: the last page has NextToken `{ $token }`: more instance types exist; call DescribeInstanceTypes again with NextToken and import all pages together
import-withdrawn = { $id }: status `abandon` (withdrawn); skipped
import-err-nothing = nothing imported: all { $n } row(s) in the response are invalid (see the warnings above); { $file } is unchanged
import-err-empty = nothing to import: the responses list no GPU or NPU instance type and no price; give { $provider }'s `{ $api }` responses that list GPU types; { $file } is unchanged
import-dry-run = dry run: { $instances } instance type(s), { $prices } price(s) would be written to { $file }{ $out ->
    [0] {""}
   *[other] ; { $out } invalid row(s) left out
}
import-done = imported { $instances } instance type(s) and { $prices } price(s) into { $file }{ $out ->
    [0] {""}
   *[other] ; { $out } invalid row(s) left out
}
prices-err-instance-provider = --instance { $id } belongs to { $owner }, not { $asked }: drop it, or fetch it with `gpuplan prices fetch { $owner }`
prices-err-family = --family { $family }: no { $provider } instance type in the catalog has that family (see `gpuplan catalog instances --provider { $provider }`)
fetch-err-endpoint-scheme = --endpoint `{ $url }`: give a URL starting with https:// (or http:// for a local test server)
fetch-err-endpoint-host = --endpoint `{ $url }`: no host
fetch-err-max-rps = { $flag } { $value }: give a positive number of requests per second up to 1000, e.g. 5
fetch-err-retries = { $flag } { $value }: give 0 to 100 retries per request (default 4)
fetch-err-timeout = { $flag } { $value }: give the seconds one request may take, 1 to 3600, e.g. 20
fetch-dry-run = dry run: { $n } request(s) to { $provider } would be written to { $path }
fetch-using-credentials = using { $provider } credentials { $id } from { $source }
fetch-done = fetched { $n } price(s) from { $provider } ({ $sent } request(s)) into { $path }
fetch-failed = { $n } of { $total } price request(s) failed:
fetch-failed-none-written = { $n } of { $total } price request(s) failed; nothing was written and the existing file is unchanged:
prices-none-billing = no { $billing } prices match; `gpuplan prices fetch PROVIDER` gets them

## gpuplan models
catalog-gpu-line = gpu: { $name } ({ $mem } GiB, { $bw } GB/s, { $tflops } TFLOPS bf16/fp16; { $confidence }, { $as_of })
catalog-gpu-unmapped = gpu: NOT MAPPED ({ $gpu }); add `[gpu_aliases]` to a user catalog to plan with it
catalog-prices-none = prices: none known (no list price was found for this type; import yours with `gpuplan catalog import`)
catalog-price-line = price { $billing }: ¥{ $cny } ({ $kind }, { $region }, { $as_of }{ $age })
catalog-price-method = {" "}— method: { $method }
catalog-price-source = {"  "}source: { $source }
catalog-family-head = family { $family } — { $provider }: { $n } type(s), { $chip }
catalog-family-row = { $id }: { $gpus } × { $gpu }, { $vcpu } vCPU, { $ram } GiB RAM, { $net } Gbit/s{ $vgpu ->
    [yes] {" "}(vGPU slice)
   *[no] {""}
}
catalog-regions = regions: { $list }
catalog-regions-none = regions: not documented (check availability in your region in the console)
catalog-access = access: { $access } — { $note }
catalog-access-english-note = access: { $access } — { $note }
catalog-source = source: { $source } ({ $as_of }, { $confidence })
catalog-related = other families starting with this name: { $list }
catalog-wrong-note = note: "{ $name }" { $verdict }
catalog-wrong-note-provider = note ({ $provider }): "{ $name }" { $verdict }
models-arch = { $name } ({ $structure }): hidden { $hidden }, layers { $layers }, heads { $heads }/{ $kv } kv, head_dim { $head_dim }, ffn { $ffn }, vocab { $vocab }, { $gated ->
    [yes] gated MLP
   *[no] plain MLP
}, { $norm }, { $attention }, context { $context }{ $moe }
models-structure-decoder_only = decoder-only
models-structure-encoder_only = encoder-only
models-structure-encoder_decoder = encoder-decoder
models-arch-mla = MLA (q_lora_rank { $q }, kv_lora_rank { $kv }, qk_rope_head_dim { $rope })
models-arch-moe = , MoE { $experts } experts × { $ffn } (top-{ $top }, { $shared } shared, { $dense } dense layers)
models-col-model = model
models-col-type = type
models-col-params = params
models-col-active = active
models-col-published = published
models-col-layers = layers
models-col-hidden = hidden
models-col-heads = heads/kv
models-col-context = context
models-narrow-note = Narrow terminal: type, published size, layers and hidden size are left out (`gpuplan models show NAME`, `--format markdown`, or a wider $COLUMNS show them).
models-narrow-dropped = Also left out at this width: { $cols }.
models-col-detail = detail
models-embedding = token embedding
models-stem = positions / stem
models-layers = { $name } layers × { $n }
models-per-layer = { $params } per layer: { $linears }
models-final-norms = final norms
models-lm-head = lm head
models-tied = tied or none
models-total = total
models-published = published { $n }
models-active = active per token
models-notes = notes: { $text }
models-source = source: { $text }
cli-err-solve-needs-tpot = --solve max-throughput needs --tpot SECONDS (the time-per-output-token target, e.g. 0.05)
cli-err-tpot-without-solve = --tpot is the target of --solve max-throughput and is read nowhere else: add --solve max-throughput, or remove --tpot (an estimate answers at the given --batch)
cli-err-solve-training = --solve answers a serving question: use it with --task inference (a training job has no KV pool, batch or TPOT to solve for)
cli-err-estimate-opaque-serving = `estimate` sizes the serving of transformers (weights, KV cache, latency per token); { $model } is given by its totals (no layers, no KV cache): `gpuplan plan -m { $model } --task inference` sizes its serving (one request = { $unit })
cli-err-image-size = invalid --image-size `{ $value }`: give WIDTHxHEIGHT in pixels, e.g. 1024x768
cli-err-solve-tpot-range = invalid --tpot { $value }: give seconds per output token in (0, 3600], e.g. 0.05
cli-err-solve-needs-question = --solve needs a question: max-context, max-batch or max-throughput

## catalog gpus, prices
gpus-col-id = id
gpus-col-name = name
gpus-col-tflops = bf16/fp16 TFLOPS
gpus-col-fp8 = fp8
gpus-col-link = link
gpus-col-link-gbs = link GB/s
gpus-col-stack = stack
gpus-col-confidence = confidence
gpus-col-as-of = as of
gpus-legend = – = not sourced (left out rather than guessed). Sources: `gpuplan catalog gpus --format json`.
prices-col-provider = provider
prices-col-instance = instance
prices-col-gpu = gpu
prices-col-region = region
prices-col-billing = billing
prices-col-per-gpu-hour = ¥/GPU-h
prices-col-kind = kind
prices-col-as-of = as of
prices-col-age = age
prices-col-vs-cheapest = vs cheapest
prices-none = no prices match; `gpuplan prices fetch alibaba|tencent|huawei` gets today's prices with your credentials
prices-old-note = { $n } price(s) are older than 90 days; `gpuplan prices fetch PROVIDER` gets today's prices with your credentials

## Input files (cmd/mod.rs read_input)
input-kind-case-file = case file
input-kind-catalog-file = catalog file
input-kind-credential-file = credential file
input-kind-model-config = model config
input-kind-plan-file = plan file
input-kind-provider-response = provider response
input-kind-workload-file = workload file
input-err-unreadable = cannot read { $what } { $file }: { $why }
input-err-directory = { $what } { $file } is a directory: give the path of a file
input-err-not-regular = { $what } { $file } is not a regular file (a pipe, socket or device): save it to a file first
input-err-too-big = { $what } { $file } is { $bytes } bytes, over the { $limit } MiB limit for one input file: split it
input-err-grew = { $what } { $file } grew past the { $limit } MiB limit for one input file while being read
input-err-not-utf8 = { $what } { $file } is not UTF-8 text (invalid byte at offset { $offset }): save it as UTF-8
io-not-found = { $os }
io-permission-denied = { $os }
io-already-exists = { $os }
io-not-a-directory = { $os }
io-is-a-directory = { $os }
io-storage-full = { $os }
io-read-only = { $os }
io-io-error = { $os }
io-no-device-address = { $os }
io-busy = { $os }
io-no-device = { $os }
io-invalid-argument = { $os }
io-file-too-large = { $os }
io-name-too-long = { $os }
io-symlink-loop = { $os }
io-other = { $os }

## --help (the flag texts themselves are in help.ftl)
help-values = {" "}[possible values: { $values }]
help-default = {" "}[default: { $value }]
help-builtin-help = Print help
help-builtin-version = Print version
help-builtin-help-command = Print this message or the help of the given subcommand(s)
cli-ctx-import-unreadable = { $path } cannot be updated: fix or remove it
cli-ctx-gpu-not-in-table = GPU `{ $gpu }` of `{ $id }` is not in the GPU table
cli-ctx-in-file = in { $path }
cli-ctx-no-profiles = no `profiles` list: configure the { $file } CLI first
cli-ctx-no-profile = no profile named `{ $name }` in `profiles`
cli-ctx-cannot-create = cannot create { $path }
cli-ctx-cannot-open-lock = cannot open the lock file { $path }
cli-ctx-cannot-lock = cannot lock { $path }
cli-ctx-not-a-file = { $path } does not name a file
cli-ctx-cannot-read-link = cannot read the link { $path }
cli-ctx-cannot-write = cannot write { $path }
cli-creds-only-one = only one of { $id } and { $secret } is set: set both, or unset both to use the CLI profile
cli-creds-none-home = no { $provider } credentials: set { $id } and { $secret } (HOME is not set, so no CLI profile was read)
cli-creds-none = no { $provider } credentials: set { $id } and { $secret }, or configure the provider's CLI ({ $path } not found)
cli-warn-plan-two-jobs = the workload has both `[training]` and `[serve]`: `plan` plans the `[{ $used }]` job and ignores `[{ $ignored }]` (choose with `kind = "training"` or `kind = "inference"` in the file, or --task)
cli-warn-estimate-serve = the workload's `[serve]` table is read by `plan` only: `estimate` estimates the `[{ $job }]` job and ignores it (an estimate's serving settings go in `[inference]`; run `gpuplan plan --workload` for `[serve]`)
cli-warn-plan-ignores = `[{ $key }]` is read by `gpuplan estimate` only: `plan` { $key ->
    [hardware] searches the hardware itself (restrict it with --gpu, --family or --provider)
   *[other] takes its serving settings from `[serve]`
}; the table is ignored
cli-note-paged-peft = --paged-optimizer is counted for full training only: a LoRA/QLoRA run's adapter optimizer states are small and stay counted in device memory (docs/methodology.md, options of the step)
cli-note-weights-awq = awq (--weights, or `weights` in the workload file) is sized as int4-g128: AWQ's 4-bit weights with a 16-bit scale and zero point per 128 inputs (AutoAWQ's default group; a GPTQ checkpoint of that group stores the same bytes), served with the engine's AWQ kernel; vLLM and SGLang load AWQ only from compute capability 7.5, so no plan below it serves it (--weights gptq loads from 6.0)
cli-note-qlora-recompute = QLoRA under the hugging_face profile recomputes every layer (--recompute full): PEFT's prepare_model_for_kbit_training turns gradient checkpointing on unless the script passes use_gradient_checkpointing=False; give --recompute none (or `recompute` in the workload file) for a script that does

# A price's age after its date (prices::age_label).
price-age = {", "}{ $days } d old
