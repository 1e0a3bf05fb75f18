# Command-line errors raised while the flags are parsed (clap), and the CLI's own errors.

cli-err-unknown-argument = unexpected argument '{ $arg }'
cli-err-invalid-value = invalid value '{ $value }' for '{ $arg }' (possible values: { $valid })
cli-err-missing-argument = the required argument { $arg } was not given
cli-err-invalid-subcommand = unknown subcommand '{ $sub }'
cli-err-value-validation = invalid value '{ $value }' for '{ $arg }'
cli-err-conflict = '{ $arg }' cannot be used with '{ $other }'
cli-err-suggest = tip: did you mean '{ $s }'?
cli-err-help = For more information, try '--help'.
