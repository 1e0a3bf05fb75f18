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
