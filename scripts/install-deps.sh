#!/usr/bin/env bash
# Installs every Debian 12 package podbench's scripts need. Idempotent:
# packages already present are left alone, and apt is only called when
# something is missing. Run as root (or with sudo available).
#
#   scripts/install-deps.sh [GROUP...]     (default: build)
#
# Groups:
#   build      building, testing, benchmarking and the quick start (what the
#              README's commands need on a fresh machine; the clean room,
#              scripts/cleanroom.sh, checks that this list is complete)
#   cleanroom  what scripts/cleanroom.sh needs on the host to build the clean
#              root. A separate group because the clean root must not get it:
#              the clean room proves that `build` alone suffices.
set -euo pipefail

BUILD=(
  build-essential cmake ninja-build ccache clang libclang-rt-14-dev git pkg-config
  libcli11-dev libyaml-cpp-dev libsqlite3-dev sqlite3
  libbenchmark-dev libgtest-dev libgmock-dev
  nlohmann-json3-dev libsimdjson-dev libfmt-dev
  libopenmpi-dev openmpi-bin
  libdnnl-dev ocl-icd-opencl-dev libopenblas-dev
  libturbojpeg0-dev
  chromium  # the HTML report's browser test (tests/e2e/report_browser_test.cc)
)
CLEANROOM=(mmdebstrap debian-archive-keyring)

groups=("$@")
[ ${#groups[@]} -gt 0 ] || groups=(build)
PACKAGES=()
for g in "${groups[@]}"; do
  case "$g" in
    build) PACKAGES+=("${BUILD[@]}") ;;
    cleanroom) PACKAGES+=("${CLEANROOM[@]}") ;;
    *) echo "install-deps: unknown group '$g' (build, cleanroom)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present (${groups[*]})"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
