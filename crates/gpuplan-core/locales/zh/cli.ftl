# 解析命令行参数时（clap）的错误，以及 CLI 自身的错误。

cli-err-unknown-argument = 无法识别的参数 '{ $arg }'
cli-err-invalid-value = '{ $arg }' 的取值 '{ $value }' 无效（可选：{ $valid }）
cli-err-missing-argument = 缺少必需的参数 { $arg }
cli-err-invalid-subcommand = 未知的子命令 '{ $sub }'
cli-err-value-validation = '{ $arg }' 的取值 '{ $value }' 无效
cli-err-conflict = '{ $arg }' 不能与 '{ $other }' 同时使用
cli-err-suggest = 提示：您是否要用 '{ $s }'？
cli-err-help = 更多信息请运行 '--help'。
