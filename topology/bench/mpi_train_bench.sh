#!/usr/bin/env bash
# Host time per training step of `podbench run W --mode functional` in one
# process and under `mpirun -np R`, with the payload bytes each rank sent per
# step (counted by the MPI rank group: collectives and all-gathers). Not a
# test: it prints figures. Kernel variants are pinned so every R computes
# the same thing (PODBENCH_KERNELS, overridable).
#   topology/bench/mpi_train_bench.sh [PODBENCH] [RANKS...]      (default: build/release/harness/podbench 1 2 4)
# WORKLOAD and FLAGS in the environment choose the run (default: a small
# functional Transformer on tpu-v3-8, one epoch of 16 steps; WORKLOAD=resnet
# defaults to the functional ResNet on tpu-v3-8, 4 epochs of 8 steps of 128
# images with BN groups of 2 cores).
set -euo pipefail
podbench=${1:-build/release/harness/podbench}
shift || true
[ $# -gt 0 ] && counts=("$@") || counts=(1 2 4)
workload=${WORKLOAD:-transformer}
case $workload in
  resnet) default_flags="--slice tpu-v3-8 --preset functional --set max_epochs=4 --set functional_train_examples=1024 --set functional_eval_examples=64" ;;
  *) default_flags="--slice tpu-v3-8 --preset functional --set max_epochs=1 --set functional_train_sentences=512 --set functional_eval_sentences=8 --set functional_layers=2 --set global_batch_size=32" ;;
esac
read -r -a flags <<<"${FLAGS:-$default_flags}"
export PODBENCH_KERNELS=${PODBENCH_KERNELS:-gemm_f32=f32_gemm__scalar,gemm_bf16=bf16_gemm__scalar}
export OMPI_MCA_rmaps_base_oversubscribe=1
podbench=$(readlink -f "$podbench")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores online"
echo "run: podbench run $workload --mode functional ${flags[*]}"
echo "kernels: PODBENCH_KERNELS=$PODBENCH_KERNELS"
printf '%-6s %8s %14s %22s\n' ranks steps "host s/step" "bytes/step per rank"
for r in "${counts[@]}"; do
  launch=()
  [ "$r" -gt 1 ] && launch=(mpirun --allow-run-as-root --oversubscribe -np "$r")
  # Exit 1 is a verdict (the run aborted short of its target): still timed.
  out=$(cd "$work" && rm -f b.db && "${launch[@]}" "$podbench" run "$workload" --mode functional --runs 1 --seed 1 \
        --db b.db --print-parameter-fingerprint "${flags[@]}" 2>/dev/null) || true
  line=$(grep 'parameters:' <<<"$out")
  steps=$(sed -E 's/.* ([0-9]+) steps in .*/\1/' <<<"$line")
  secs=$(sed -E 's/.* steps in ([0-9.]+) s host.*/\1/' <<<"$line")
  bytes=$(grep 'bytes sent per rank:' <<<"$out" | sed 's/.*rank://' || true)
  per_step=""
  for b in $bytes; do per_step+=" $((b / steps))"; done
  printf '%-6s %8s %14s %22s\n' "$r" "$steps" "$(awk -v s="$secs" -v n="$steps" 'BEGIN{printf "%.4f", s/n}')" \
    "${per_step:- 0}"
done
