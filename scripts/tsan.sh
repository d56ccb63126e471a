#!/usr/bin/env bash
# ThreadSanitizer over podbench's threaded code: the kernels' thread pool,
# the functional collectives (one thread per emulated core), functional
# ResNet training (one thread per emulated core, batch-norm and gradient
# all-reduces between them), and the shared data-parallel machinery with the
# functional Transformer trained on it, and MiniGo's loop (self-play beside
# training on two threads of the kernels' pool). The threads an MPI rank runs (its
# cores' threads, taking turns at the rank group) are covered by
# data_parallel_test's ranks-as-threads group (OverRanksEqualsOneProcessBitwise):
# the same DataParallel code over a topology::RankGroup, without OpenMPI,
# whose uninstrumented library would only add noise. Builds only those test programs, with
# -DPODBENCH_TSAN=ON, and runs them; any report fails (halt_on_error).
# Where the compiler cannot build a ThreadSanitizer program it prints
# "tsan: SKIPPED: <why>" and exits 0.
#   scripts/tsan.sh [BUILD_DIR]      (default build/tsan)
# scripts/tsan.supp lists suppressions: third-party code only, each with why.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build/tsan}
tests=(kernels/kernels_thread_pool_test topology/topology_functional_test workloads/resnet/resnet_functional_test
       workloads/functional/data_parallel_test workloads/transformer/transformer_functional_test
       workloads/minigo/minigo_functional_test)
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
echo 'int main() { return 0; }' > "$probe/p.cc"
if ! "${CXX:-c++}" -fsanitize=thread "$probe/p.cc" -o "$probe/p" > "$probe/log" 2>&1; then
  echo "tsan: SKIPPED: ${CXX:-c++} cannot build with -fsanitize=thread: $(head -n 1 "$probe/log")"
  exit 0
fi
if ! "$probe/p" > "$probe/log" 2>&1; then
  echo "tsan: SKIPPED: a ThreadSanitizer program does not start on this kernel: $(head -n 1 "$probe/log")"
  exit 0
fi
PODBENCH_BUILD_TARGETS="${tests[*]##*/}" bash scripts/build.sh "$dir" -DPODBENCH_TSAN=ON \
  -DPODBENCH_BENCHMARKS=OFF -DPODBENCH_MPI=OFF
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$PWD/scripts/tsan.supp"
# Each program in as many gtest shards as there are cores, in parallel.
shards=$(nproc)
for t in "${tests[@]}"; do
  echo "== $t under ThreadSanitizer ($shards shards)"
  pids=()
  for ((i = 0; i < shards; i++)); do
    GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i "$dir/tests/$t" --gtest_brief=1 > "$dir/tsan-${t##*/}-$i.log" 2>&1 &
    pids+=($!)
  done
  failed=0
  for ((i = 0; i < shards; i++)); do
    wait "${pids[$i]}" || failed=1
    grep -E '^\[  (PASSED|FAILED) |tests? from .* ran' "$dir/tsan-${t##*/}-$i.log" || true
  done
  if [ "$failed" -ne 0 ]; then
    cat "$dir"/tsan-"${t##*/}"-*.log
    echo "tsan: $t FAILED"
    exit 1
  fi
done
echo "tsan: no data race reported"
