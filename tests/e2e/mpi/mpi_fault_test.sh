#!/usr/bin/env bash
# Faults of `mpirun -np R podbench run`:
#   kill      a rank killed with SIGKILL mid-run stops the job, rank 0 names
#             it, the run is stored incomplete and the database keeps its
#             earlier run;
#   hang      a rank that stops answering is caught by --rank-timeout;
#   settings  a rank with other flags is refused at start-up, naming it;
#   build     a rank running another build is refused at start-up;
#   ownerror  a rank that fails on its own arguments says why, naming itself
#             (rank 0 sees only that it died).
#   mpi_fault_test.sh PODBENCH MPIEXEC CASE
# The kill and hang use the MPI group's test hook PODBENCH_MPI_FAULT
# (topology/mpi_rank_group.cc): KIND:RANK:CALL, at that rank's CALL-th
# collective. Every wait is bounded by `timeout`, so a broken fault path
# fails instead of hanging.
set -uo pipefail
podbench=$1 mpiexec=$2 case=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export OMPI_MCA_rmaps_base_oversubscribe=1
mpirun=("$mpiexec" --allow-run-as-root --oversubscribe)
toy=(run toy --mode functional --runs 1 --seed 5 --db run.db --set toy_train_examples=4096 --set max_epochs=5
     --set opt_base_learning_rate=0.001)
fail() { echo "FAIL ($case): $*"; echo "--- stdout"; cat out 2>/dev/null; echo "--- stderr"; cat err 2>/dev/null; exit 1; }
expect() { grep -q -- "$1" "$2" || fail "expected '$1' in $2"; }

case $case in
  kill|hang)
    # An earlier, complete run that the failed one must not disturb.
    "$podbench" run toy --mode functional --runs 1 --seed 1 --db run.db >/dev/null 2>&1 || fail "the first run failed"
    if [ "$case" = kill ]; then
      fault=kill:1:40
      extra=()
    else
      fault=hang:1:40
      extra=(--rank-timeout 3)
    fi
    start=$(date +%s)
    timeout 120 "${mpirun[@]}" -x PODBENCH_MPI_FAULT=$fault -np 3 "$podbench" "${toy[@]}" "${extra[@]}" >out 2>err
    rc=$?
    took=$(( $(date +%s) - start ))
    [ $rc -ne 0 ] || fail "the job succeeded"
    [ $rc -ne 124 ] || fail "the job did not stop within 120 s"
    if [ "$case" = kill ]; then
      expect "rank 1 (pid" err
      grep -Eq "rank 1 \(pid [0-9]+ on [^)]*\) has died|waiting for rank 1" err || fail "rank 0 did not name rank 1"
    else
      expect "no answer within the rank timeout of 3 s; waiting for rank 1 (pid" err
    fi
    [ "$(grep -c . out)" -le 2 ] || fail "more than rank 0's header on standard output"
    rows=$(sqlite3 run.db "SELECT seed || ':' || status || ':' || complete FROM runs ORDER BY id")
    [ "$(echo "$rows" | head -1)" = "1:success:1" ] || fail "the earlier run changed: $rows"
    [ "$(echo "$rows" | sed -n 2p)" = "5:running:0" ] || fail "the failed run is not stored incomplete: $rows"
    # "running" while rank 0's pid lives (mpirun may return before it is reaped), then "incomplete".
    for _ in $(seq 50); do
      "$podbench" runs --db run.db >runs 2>&1 || true
      grep -q incomplete runs && break
      sleep 0.2
    done
    expect "incomplete" runs
    echo "$case: the job stopped in ${took} s with: $(grep -m1 'rank 1' err)"
    ;;
  settings)
    timeout 120 "${mpirun[@]}" -np 1 "$podbench" "${toy[@]}" : -np 1 "$podbench" "${toy[@]}" --set max_epochs=6 \
      >out 2>err
    [ $? -ne 0 ] || fail "mismatched settings ran"
    expect "MPI rank 1 has different settings from rank 0" err
    [ ! -e run.db ] || fail "a refused job wrote the database"
    echo "settings: $(grep -m1 'rank 1' err)"
    ;;
  build)
    cp "$podbench" other && printf 'x' >>other  # runs the same, fingerprints differently
    timeout 120 "${mpirun[@]}" -np 1 "$podbench" "${toy[@]}" : -np 1 ./other "${toy[@]}" >out 2>err
    [ $? -ne 0 ] || fail "mismatched builds ran"
    expect "MPI rank 1 runs a different podbench build" err
    [ ! -e run.db ] || fail "a refused job wrote the database"
    echo "build: $(grep -m1 'rank 1' err)"
    ;;
  ownerror)
    timeout 120 "${mpirun[@]}" -np 1 "$podbench" "${toy[@]}" : -np 1 "$podbench" run resnet --mode projected --runs 1 \
      --seed 5 --db run.db >out 2>err
    [ $? -ne 0 ] || fail "the job succeeded"
    expect "MPI rank 1: podbench run: model_bn_span" err
    echo "ownerror: $(grep -m1 'MPI rank 1' err)"
    ;;
  *) fail "unknown case" ;;
esac
