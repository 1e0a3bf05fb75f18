# Command-line errors raised while the flags are parsed (clap), and the CLI's own errors.

cli-err-unknown-argument = unexpected argument '{ $arg }'
cli-err-invalid-value = invalid value '{ $value }' for '{ $arg }' (possible values: { $valid })
cli-err-missing-argument = the required argument { $arg } was not given
cli-err-invalid-subcommand = unknown subcommand '{ $sub }'
cli-err-value-validation = invalid value '{ $value }' for '{ $arg }'
cli-err-conflict = '{ $arg }' cannot be used with '{ $other }'
cli-err-suggest = tip: did you mean '{ $s }'?
cli-err-help = For more information, try '--help'.
cli-err-no-model = no model given: pass --model NAME (see `gpuplan models`) or --model-config PATH/config.json
cli-err-bad-word = invalid --{ $field } `{ $value }`: { $why }
cli-err-in-file = in { $file }
cli-err-set-form = --set `{ $value }`: expected NAME=VALUE, e.g. --set fragmentation=0.05
cli-err-set-number = --set { $name }: `{ $value }` is not a number
cli-err-deadline = --deadline `{ $value }`: expected hours (24), or 24h / 30d
cli-err-dataset-size = --dataset-size `{ $value }`: expected a size such as 30TB, 500GiB or 1.5e12 (bytes)
cli-err-dataset-size-range = --dataset-size `{ $value }`: must be a positive size up to 1 EB
cli-err-spot-needs-interruptible = --billing spot needs --interruptible: spot instances are reclaimed, so the job must checkpoint and resume
cli-err-serving-flag = { $flag } is a serving flag: add --task inference (or remove { $flag } to plan training)
cli-err-min-replicas = min_replicas { $value }: give 1 to { $max } (--min-replicas or [serve] min_replicas)
cli-err-peak-factor = peak_factor { $value }: give a multiple of the stated load from 1 to 100, e.g. 1.5 (--peak-factor or [serve] peak_factor)
cli-err-weights-plan = --weights `{ $value }`: use bf16, fp16, fp8, int8 or int4
cli-err-weights-estimate = invalid --weights `{ $value }`: use fp32, bf16, fp16, fp8, int8, int4, or bits per weight such as 4.5 (GGUF Q4_K)
cli-err-top = invalid --top { $value }: plans to show, 1–{ $max }
cli-err-max-price-age = invalid --max-price-age `{ $value }`: give days, e.g. 30d (or weeks, e.g. 4w)
cli-err-instance-unmapped = instance `{ $id }` has an unmapped GPU or is a vGPU slice: estimate on --gpu instead
cli-err-similar-families = { $error }
    families with a similar name: { $hints } (`gpuplan catalog show FAMILY` lists a family)
cli-err-solve-needs-tpot = --solve max-throughput needs --tpot SECONDS (the time-per-output-token target, e.g. 0.05)
cli-err-solve-tpot-range = invalid --tpot { $value }: give seconds per output token in (0, 3600], e.g. 0.05
cli-err-solve-needs-question = --solve needs a question: max-context, max-batch or max-throughput
