#!/usr/bin/env bash
# `mpirun -np R podbench run W --mode functional ...` equals the one-process
# run: for R in the given counts, the parameters after training (their
# fingerprint, bitwise), the MLPerf log apart from its wall-clock fields
# (the :::MLL timestamps start at the host's clock) and the database row,
# its evaluations and its log events (apart from host times, pid and dates).
#   mpi_equal_test.sh PODBENCH MPIEXEC "2 4" WORKLOAD [run flags...]
# Exits 0 when every R matches, 1 with the differences otherwise.
set -euo pipefail
podbench=$1 mpiexec=$2 counts=$3 workload=$4
shift 4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The layout-equivalence tests' pins: dispatch by measurement could pick
# different GEMM variants in different processes.
export PODBENCH_KERNELS=${PODBENCH_KERNELS:-gemm_f32=f32_gemm__scalar,gemm_bf16=bf16_gemm__scalar}
export OMPI_MCA_rmaps_base_oversubscribe=1

run() {  # run DIR LAUNCH...: one podbench run in DIR, relative paths, so flags and rows match
  local dir=$1
  shift
  mkdir -p "$dir"
  local rc=0
  (cd "$dir" && "$@" "$podbench" run "$workload" --mode functional --runs 1 --seed 7 --db run.db --log run.log \
      --print-parameter-fingerprint "${ARGS[@]}" >stdout 2>stderr) || rc=$?
  # 1 is a verdict (the run aborted: the target not reached), compared below.
  if [ $rc -gt 1 ]; then
    echo "FAILED ($rc): $* podbench run $workload ${ARGS[*]}"
    cat "$dir/stdout" "$dir/stderr"
    exit 1
  fi
  echo "exit $rc" >"$dir/rc"
}

# The comparable content of one run directory.
summary() {
  local dir=$1
  cat "$dir/rc"
  echo "== parameters"
  grep -o 'parameters: [^ ]*' "$dir/stdout"
  echo "== status"
  grep -o '): [a-z]* after [0-9]* epochs\?' "$dir/stdout"
  echo "== log (timestamps dropped)"
  sed -E 's/^(:::MLL) [0-9.]+ /\1 /' "$dir/run.log"
  echo "== runs row"
  sqlite3 "$dir/run.db" "SELECT label, workload, slice_id, mode, preset, flags, hyperparameters, seed, global_batch,
      git_hash, host, log_path, status, complete, ttt_emulated_s, step_time_s, throughput, epochs, init_emulated_s
      FROM runs"
  echo "== evals"
  sqlite3 "$dir/run.db" "SELECT run_id, epoch, metric, value FROM evals"
  echo "== step breakdown"
  sqlite3 "$dir/run.db" "SELECT * FROM step_breakdown"
  echo "== log events"
  sqlite3 "$dir/run.db" "SELECT seq, printf('%.3f', ts_emulated_s - (SELECT MIN(ts_emulated_s) FROM log_events)), key, value, metadata
      FROM log_events ORDER BY seq"
}

ARGS=("$@")
run "$work/one" env
summary "$work/one" >"$work/one.txt"
grep -q 'parameters: fnv1a64:' "$work/one.txt" || { echo "no parameter fingerprint"; cat "$work/one/stdout"; exit 1; }
status=0
for r in $counts; do
  run "$work/r$r" "$mpiexec" --allow-run-as-root --oversubscribe -np "$r"
  summary "$work/r$r" >"$work/r$r.txt"
  if diff -u "$work/one.txt" "$work/r$r.txt" >"$work/r$r.diff"; then
    echo "$workload: $r ranks equal one process ($(grep -o 'parameters: [^ ]*' "$work/r$r/stdout"))"
  else
    echo "$workload: $r ranks DIFFER from one process:"
    head -40 "$work/r$r.diff"
    status=1
  fi
  # mpirun reports a non-zero exit itself; podbench's ranks must say nothing.
  if grep -q podbench "$work/r$r/stderr"; then
    echo "$workload: $r ranks wrote to standard error:"
    cat "$work/r$r/stderr"
    status=1
  fi
done
exit $status
