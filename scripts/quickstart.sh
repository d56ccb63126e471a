#!/usr/bin/env bash
# Installs what is missing, builds, and runs podbench's main job: Google's
# MLPerf v0.6 ResNet-50 submission reproduced on the emulated TPU-v3 pod
# (projected mode, every published slice, 5 scored runs each, logs checked
# against the v0.6 rules), the fidelity table against the published scores,
# and, where ../shared is present, a compliance check and score of the real
# published Google v0.6 logs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# The binary is all the quick start needs (scripts/test.sh builds the rest).
PODBENCH_BUILD_TARGETS=podbench bash scripts/build.sh build/release
pb=build/release/harness/podbench
out=quickstart
mkdir -p "$out"
rm -f "$out/podbench.db"*
$pb --version
for slice in tpu-v3-32 tpu-v3-128 tpu-v3-256 tpu-v3-512 tpu-v3-1024 tpu-v3-2048; do
  $pb run resnet --mode projected --slice "$slice" --preset google-v0.6 --seed 1 \
    --db "$out/podbench.db" --log "$out/resnet-$slice.log"
done
echo
$pb scaling resnet --preset google-v0.6 --db "$out/podbench.db"
logs=../shared/fixtures/logs/v0.6/Google
if [ -d "$logs" ]; then
  echo
  echo "== the published Google v0.6 logs: podbench's v0.6 rules, then the v0.6 scores"
  $pb check --quiet "$logs" | awk '{n[$1]++} $1 != "PASS" {print} END {printf "%d logs: %d PASS, %d FAIL\n", NR, n["PASS"], n["FAIL"]}' || true
  $pb score "$logs"
else
  echo "(../shared is not beside this checkout: skipping the published logs)"
fi
