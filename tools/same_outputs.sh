#!/usr/bin/env bash
# Byte-for-byte comparison of two gpuplan binaries over a fixed set of commands: stdout, stderr
# and exit code of each (docs/performance.md, stop 41). A performance change must leave every
# one of them identical.
#
#   tools/same_outputs.sh OLD_BINARY NEW_BINARY
#
# Prints one line per command (same / DIFFERENT) and exits 1 if any differs. Runs with no user
# catalog (--no-user-catalog is not a flag of every command; HOME points to an empty directory)
# and a fixed date, so both binaries see the same inputs.
set -u
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Both copied as `gpuplan` (clap prints the binary's name in usage lines).
mkdir -p "$work/old" "$work/new"
cp "${1:?old binary}" "$work/old/gpuplan"
cp "${2:?new binary}" "$work/new/gpuplan"
old="$work/old/gpuplan"
new="$work/new/gpuplan"
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config"
mkdir -p "$HOME"
export COLUMNS=120

P13=(plan -m Llama-2-13B --task pretrain --tokens 3e11 --seq-len 4096 --max-nodes 64)
cmds=(
  "${P13[*]}"
  "${P13[*]} --format json --top 500"
  "${P13[*]} --wide --top 3 --explain"
  "${P13[*]} --lang zh"
  "${P13[*]} --interruptible --format json"
  "plan -m Llama-2-13B --task pretrain --tokens 3e11 --seq-len 4096 --max-nodes 16 --format markdown --explain --top 8"
  "plan -m DeepSeek-V3 --task pretrain --tokens 1e12 --seq-len 4096 --max-nodes 64"
  "plan -m Mixtral-8x7B --task full --tokens 1e9 --seq-len 4096 --max-nodes 16"
  "plan --model Qwen2.5-7B --task lora --seq-len 2048 --tokens 1e8 --provider alibaba --deadline 24h --explain"
  "plan -m Llama-3.1-8B --task full --tokens 1e9 --seq-len 4096 --format json"
  "plan -m Llama-3.1-70B --task qlora --tokens 1e8 --seq-len 2048 --lang zh --explain"
  "plan -m Llama-3.1-70B --task full --tokens 1e9 --seq-len 4096 --max-nodes 32"
  "plan -m Llama-3.1-70B --task inference --rate 10 --input-tokens 1000 --output-tokens 300 --ttft 2 --tpot 0.06 --format json"
  "plan -m Llama-3.1-70B --task inference --rate 10 --input-tokens 1000 --output-tokens 300 --ttft 2 --tpot 0.06 --lang zh"
  "plan -m Llama-2-70B --task qlora --tokens 1e8 --seq-len 2048 --format markdown --explain"
  "estimate --model Llama-3.1-8B --task lora --gpu A100 --recompute full --tokens 1e8"
  "estimate --model Llama-3.1-8B --task lora --gpu A100 --recompute full --tokens 1e8 --format json"
  "estimate --model Llama-3.1-8B --task lora --gpu A100 --tokens 1e8 --lang zh"
  "models"
  "--help"
  "--lang zh --help"
  "plan --help"
  "plan --help --lang zh"
  "help plan --lang zh"
  "estimate -h"
  "--version"
  "plan"
  "plan -m Llama-2-13B --task pretrain --tokens -1"
  "plan -m Llama-2-13B --task pretrain --tokens 3e11 --max-nodes abc"
  "plan -m Llama-2-13B --task pretrian"
  "plan -m Llama-2-13B --no-such-flag --format json"
  "plan -m Llama-2-13B --no-such-flag --lang zh"
  "plna -m Llama-2-13B"
  "accuracy --format json"
)
fail=0
for c in "${cmds[@]}"; do
  # shellcheck disable=SC2086
  "$old" $c >"$work/o.out" 2>"$work/o.err"; oc=$?
  # shellcheck disable=SC2086
  "$new" $c >"$work/n.out" 2>"$work/n.err"; nc=$?
  if [ "$oc" = "$nc" ] && cmp -s "$work/o.out" "$work/n.out" && cmp -s "$work/o.err" "$work/n.err"; then
    echo "same      (exit $oc, $(wc -c <"$work/o.out") B out, $(wc -c <"$work/o.err") B err): $c"
  else
    echo "DIFFERENT (exit $oc vs $nc): $c"
    fail=1
  fi
done
exit $fail
