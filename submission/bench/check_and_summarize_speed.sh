#!/usr/bin/env bash
# The whole check-and-summarize of the parity trees (../shared/fixtures/parity:
# v1.0 Graphcore, v1.0 Habana, v4.0 Intel-HabanaLabs), podbench against the
# official mlperf_logging tools, side by side in one run. Not a test: it
# prints times; nothing passes or fails on them.
#
#   submission/bench/check_and_summarize_speed.sh [PODBENCH_BINARY] [RUNS] [OFFICIAL_CHECKOUT] [PYTHON]
#     defaults: build/release/harness/podbench, 5, $MLPERF_LOGGING_CHECKOUT, python3
#
# OFFICIAL_CHECKOUT is a checkout of github.com/mlcommons/logging (the parity
# data was recorded at 7bbf792, mlperf_logging 4.1.59); PYTHON must import
# numpy, scipy, pandas and yaml (on Debian: python3-numpy python3-scipy
# python3-pandas python3-yaml, e.g. in a scratch venv made with
# --system-site-packages). The official tools are not part of podbench.
#
# One "pass" = the package check of the 3 trees (package_checker / podbench
# package: system descriptions, every log's compliance, seeds, RCP), the RCP
# check of the 10 closed/open benchmark folders (rcp_checker / podbench rcp)
# and the summary of the 3 trees (result_summarizer / podbench summarize):
# 16 processes a side, every process timed with its start-up. The official tools write scaling.json into the tree, so every
# official pass runs on a fresh copy (the copy is not timed); podbench runs on
# the shared trees themselves (it writes nothing there).
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$(realpath "${1:-build/release/harness/podbench}")
runs=${2:-5}
official=${3:-${MLPERF_LOGGING_CHECKOUT:-}}
python=${4:-python3}
shared=$(realpath "${PODBENCH_SHARED:-../shared}")
parity=$shared/fixtures/parity
[ -d "$parity/trees" ] || { echo "no parity trees at $parity (set PODBENCH_SHARED)"; exit 2; }
[ -n "$official" ] && [ -d "$official/mlperf_logging" ] || {
  echo "give a checkout of mlcommons/logging as the third argument (or MLPERF_LOGGING_CHECKOUT)"; exit 2; }
"$python" -c 'import numpy, scipy, pandas, yaml' || { echo "$python cannot import numpy, scipy, pandas, yaml"; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# podbench's --mlperf-logging folder, laid out from the shared fixtures.
ml=$work/mlperf_logging
mkdir -p "$ml"
ln -s "$shared/fixtures/mlperf-logging-rules" "$ml/compliance_checker"
ln -s "$shared/fixtures/mlperf-logging-data/rcp_checker" "$ml/rcp_checker"

# The cases, from the recorded official runs: "tree target ruleset".
rcp_cases=$("$python" -c '
import json, sys
for l in open(sys.argv[1]):
    c = json.loads(l); a = c["argv"]
    print(c["tree"], c["target"], a[a.index("--rcp_version") + 1])' "$parity/expected/rcp_checker.jsonl")
pkg_cases=$("$python" -c '
import json, sys
for l in open(sys.argv[1]):
    c = json.loads(l); print(c["tree"], c["argv"][5])' "$parity/expected/package_checker.jsonl")
sum_cases=$("$python" -c '
import json, sys
for l in open(sys.argv[1]):
    c = json.loads(l); print(c["tree"], c["argv"][5])' "$parity/expected/result_summarizer.jsonl")

now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

official_pass() {  # $1: a fresh copy of the trees
  while read -r tree ruleset; do
    (cd "$work" && PYTHONPATH=$official "$python" -m mlperf_logging.package_checker "$1/$tree" training "$ruleset" \
       --log_output "$work/package.log" >/dev/null 2>&1) || true
  done <<< "$pkg_cases"
  while read -r tree target ruleset; do
    (cd "$work" && PYTHONPATH=$official "$python" -m mlperf_logging.rcp_checker "$1/$tree/$target" \
       --rcp_usage training --rcp_version "$ruleset" --log_output "$work/rcp.log" >/dev/null 2>&1) || true
  done <<< "$rcp_cases"
  while read -r tree ruleset; do
    (cd "$work" && PYTHONPATH=$official "$python" -m mlperf_logging.result_summarizer "$1/$tree" training "$ruleset" \
       --csv "$work/official_summary.csv" >/dev/null 2>&1) || true
  done <<< "$sum_cases"
}

podbench_pass() {
  while read -r tree ruleset; do
    "$bin" package "$parity/trees/$tree" --ruleset "$ruleset" --mlperf-logging "$ml" >/dev/null 2>&1 || true
  done <<< "$pkg_cases"
  while read -r tree target ruleset; do
    "$bin" rcp "$parity/trees/$tree/$target" --ruleset "$ruleset" --mlperf-logging "$ml" >/dev/null 2>&1 || true
  done <<< "$rcp_cases"
  while read -r tree ruleset; do
    "$bin" summarize "$parity/trees/$tree" --ruleset "$ruleset" --mlperf-logging "$ml" \
      --csv "$work/podbench_summary.csv" >/dev/null 2>&1 || true
  done <<< "$sum_cases"
}

off_times=(); pb_times=()
for i in $(seq "$runs"); do
  rm -rf "$work/trees"; cp -r "$parity/trees" "$work/trees"
  t0=$(now); official_pass "$work/trees"; t1=$(now)
  podbench_pass; t2=$(now)
  o=$(echo "$t1 - $t0" | bc -l); p=$(echo "$t2 - $t1" | bc -l)
  off_times+=("$o"); pb_times+=("$p")
  printf 'pass %d: official %.3f s, podbench %.3f s\n' "$i" "$o" "$p"
done
om=$(printf '%s\n' "${off_times[@]}" | median)
pm=$(printf '%s\n' "${pb_times[@]}" | median)
awk -v o="$om" -v p="$pm" 'BEGIN {
  printf "median over the passes: official %.3f s, podbench %.3f s: podbench is %.1fx faster (wall, 16 processes each)\n", o, p, o/p }'
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores;" \
     "load average $(cut -d' ' -f1-3 /proc/loadavg) (wall times on a shared machine are noisy)"
