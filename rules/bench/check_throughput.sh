#!/usr/bin/env bash
# Throughput of `podbench check` over the fixture corpus (287 logs, 4 rulesets),
# against the official mlperf_logging checker's figure on the same corpus and
# machine size: 4.77 s in-process (../shared/reference/mlperf-logs-and-rules.md).
#
#   rules/bench/check_throughput.sh [PODBENCH_BINARY] [RUNS]   (defaults: build/harness/podbench, 7)
#
# Each run checks the four version folders with their rulesets (4 processes,
# process start-up included: podbench is timed as users run it, the official
# figure excludes Python start-up). Prints every run, then the median wall
# time, MB/s, logs/s, the ratio to 4.77 s, and whether the verdicts equal the
# official ones (CRASH counted as FAIL).
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-build/harness/podbench}
runs=${2:-7}
shared=${PODBENCH_SHARED:-../shared}
fixtures=$shared/fixtures
[ -d "$fixtures/logs" ] || { echo "no fixtures at $fixtures (set PODBENCH_SHARED)"; exit 2; }
rules=$fixtures/mlperf-logging-rules
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

bytes=$(find "$fixtures/logs" -type f -printf '%s\n' | awk '{s+=$1} END {print s}')
logs=$(find "$fixtures/logs" -type f | wc -l)

one_run() {
  for v in 0.6 0.7 1.0 4.0; do
    /usr/bin/time -f "%U %S" -a -o "$out/cpu" \
      "$bin" check --quiet --format jsonl --rules-dir "$rules" --ruleset "$v.0" "$fixtures/logs/v$v" > "$out/v$v.jsonl" || true
  done
}

times=()
cpus=()
for i in $(seq "$runs"); do
  : > "$out/cpu"
  t0=$(date +%s.%N)
  one_run
  t1=$(date +%s.%N)
  t=$(echo "$t1 - $t0" | bc -l)
  c=$(awk '{s += $1 + $2} END {print s}' "$out/cpu")
  times+=("$t")
  cpus+=("$c")
  printf 'run %d: %.3f s wall, %.2f s CPU (user+sys)\n' "$i" "$t" "$c"
done
cpu_median=$(printf '%s\n' "${cpus[@]}" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}')
median=$(printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}')
awk -v m="$median" -v b="$bytes" -v n="$logs" 'BEGIN {
  printf "median %.3f s over %d logs, %.1f MB: %.1f MB/s, %.0f logs/s\n", m, n, b/1e6, b/1e6/m, n/m;
  printf "official mlperf_logging checker: 4.77 s (10.4 MB/s, 60 logs/s); podbench is %.1fx faster (wall)\n", 4.77/m }'
awk -v c="$cpu_median" 'BEGIN { printf "median CPU time %.2f s (user+sys, 4 processes, 2 threads): %.1fx less than the official checker\x27s 4.77 s\n", c, 4.77/c }'

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) (wall times on a shared machine are noisy; CPU time is not)"

# Verdict identity with the official checker (needs python3).
if command -v python3 >/dev/null; then
  cat "$out"/v*.jsonl | python3 -c '
import json, sys
exp = {}
for l in open(sys.argv[1]):
    r = json.loads(l); exp[r["log"]] = "FAIL" if r["verdict"] == "CRASH" else r["verdict"]
same = total = 0
for l in sys.stdin:
    r = json.loads(l); k = r["log"].split("/fixtures/logs/")[1]
    total += 1; same += exp[k] == r["verdict"]
print("verdicts identical to the official checker: %d of %d" % (same, total))
' "$fixtures/expected/official-verdicts.jsonl"
fi
