#!/usr/bin/env bash
# The clean room: runs the README's first command on a fresh, minimal Debian 12
# root, as a new user on a fresh machine would, so that a missing install step
# fails here instead of hiding behind packages this machine happens to have.
#
#   scripts/cleanroom.sh
#
# 1. Builds a minimal Debian 12 (bookworm) root with `mmdebstrap
#    --variant=minbase` in a temporary folder (discarded afterwards), from the
#    Debian 12 package sources this machine's apt uses (/etc/apt/sources.list
#    and sources.list.d, one-line and deb822 files; nothing hard-coded) and
#    with its Acquire settings (proxy, release-file validity).
# 2. Copies in a clean checkout of HEAD (a shallow clone: committed files only,
#    no build folders, no ../shared beside it, as on a fresh machine).
# 3. Runs, as root inside the root (chroot, with /proc, /sys and /dev mounted by
#    mmdebstrap), the command block under "## Quick start" in README.md, read
#    from the README itself, then a short functional training run with the
#    binary it built. The root starts with no compiler, no ccache contents and
#    no podbench dependency: everything comes from the first command's install
#    step, and everything is built from scratch (ccache disabled).
#
# Exit 0 when both pass, non-zero when either fails. Where the root cannot be
# built (not root, no mmdebstrap, no Debian 12 package source) it prints one
# line "cleanroom: SKIPPED: <why>" and exits 0.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
start=$(date +%s)

skip() {
  echo "cleanroom: SKIPPED: $*"
  exit 0
}

[ "$(id -u)" -eq 0 ] || skip "not root (mmdebstrap --mode=root and chroot need root)"
# The host side's own packages (mmdebstrap); install-deps.sh lists them.
bash scripts/install-deps.sh cleanroom || true
command -v mmdebstrap >/dev/null 2>&1 || skip "mmdebstrap is not installed and could not be installed"
command -v git >/dev/null 2>&1 || skip "git is not installed"

# The machine's Debian 12 package sources, as one-line entries
# "deb URI SUITE COMPONENT...": every enabled `deb` entry whose suite is
# bookworm or bookworm-* (updates, security, backports).
apt_sources() {
  local SL="" SP=""
  eval "$(apt-config shell SL Dir::Etc::sourcelist/f SP Dir::Etc::sourceparts/d)"
  local files=()
  [ -n "$SL" ] && [ -f "$SL" ] && files+=("$SL")
  if [ -n "$SP" ] && [ -d "$SP" ]; then
    for f in "$SP"/*.list "$SP"/*.sources; do [ -f "$f" ] && files+=("$f"); done
  fi
  local f
  for f in "${files[@]}"; do
    case "$f" in
      *.sources)
        awk '
          function flush(  n, m, i, j, U, S) {
            if (types ~ /(^|[ \t])deb([ \t]|$)/ && enabled != "no" && comps != "") {
              n = split(uris, U, /[ \t]+/); m = split(suites, S, /[ \t]+/)
              for (i = 1; i <= n; i++) for (j = 1; j <= m; j++) print "deb " U[i] " " S[j] " " comps
            }
            types = uris = suites = comps = last = ""; enabled = "yes"
          }
          BEGIN { enabled = "yes" }
          /^#/ { next }
          /^[ \t]*$/ { flush(); next }
          /^[ \t]/ { v = $0; sub(/^[ \t]+/, "", v)
                     if (last == "uris") uris = uris " " v; else if (last == "suites") suites = suites " " v
                     else if (last == "components") comps = comps " " v; next }
          { i = index($0, ":"); if (i == 0) next
            key = tolower(substr($0, 1, i - 1)); v = substr($0, i + 1); gsub(/^[ \t]+|[ \t]+$/, "", v); last = key
            if (key == "types") types = v; else if (key == "uris") uris = v; else if (key == "suites") suites = v
            else if (key == "components") comps = v; else if (key == "enabled") enabled = tolower(v) }
          END { flush() }' "$f" ;;
      *)
        sed -e 's/#.*//' -e 's/\[[^]]*\]//' "$f" | awk '$1 == "deb" && NF >= 4 { $1 = "deb"; print }' ;;
    esac
  done | awk '$3 == "bookworm" || $3 ~ /^bookworm-/' | awk '!seen[$0]++'
}
mapfile -t sources < <(apt_sources)
[ ${#sources[@]} -gt 0 ] || skip "no Debian 12 (bookworm) package source in this machine's apt configuration"

# The machine's apt settings that decide whether a download works: proxies,
# release-file validity (a snapshot mirror's Release files have expired), retries.
aptopts=()
while IFS= read -r line; do aptopts+=("--aptopt=$line"); done < <(
  apt-config dump | grep -E '^Acquire::(Check-Valid-Until|Check-Date|Retries|(http|https|ftp)::Proxy) ' || true)

# The README's first command: the ```sh block under "## Quick start".
first=$(awk '/^## Quick start/ { q = 1; next } /^## / { q = 0 }
             q && /^```sh/ { f = 1; next } f && /^```/ { exit } f { print }' README.md)
[ -n "$first" ] || { echo "cleanroom: FAIL: README.md has no \`\`\`sh block under '## Quick start'"; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/podbench-cleanroom.XXXXXX")
trap 'rm -rf "$work"' EXIT
git clone --quiet --depth 1 "file://$repo" "$work/podbench"
rev=$(git -C "$work/podbench" rev-parse --short HEAD)
if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
  echo "cleanroom: note: uncommitted changes are not in the clean room (it runs HEAD $rev)"
fi
tar -C "$work" -cf "$work/podbench.tar" podbench

# What runs inside, as root in /root/podbench. The functional run trains the
# small ResNet to its target on 8 emulated cores (the README's example).
cat > "$work/inside.sh" <<EOF
set -euo pipefail
cd /root/podbench
echo "cleanroom: inside a minimal Debian \$(cat /etc/debian_version) root, HEAD $rev; running the README's first command:"
printf '  %s\n' "\$(cat /root/first-command.sh)"
t=\$SECONDS
bash -euo pipefail /root/first-command.sh
echo "cleanroom: first command passed in \$((SECONDS - t)) s"
pb=build/release/harness/podbench
[ -x "\$pb" ] || { echo "cleanroom: FAIL: the first command left no \$pb"; exit 1; }
t=\$SECONDS
"\$pb" run resnet --mode functional --slice tpu-v3-8 --preset functional --runs 1 --seed 3 \\
    --db /tmp/cleanroom.db --log /tmp/cleanroom-resnet.log
echo "cleanroom: functional run passed in \$((SECONDS - t)) s"
EOF
printf '%s\n' "$first" > "$work/first-command.sh"

echo "cleanroom: building a minimal Debian 12 root (mmdebstrap --variant=minbase) from:"
printf '  %s\n' "${sources[@]}"
[ ${#aptopts[@]} -eq 0 ] || printf '  with %s\n' "${aptopts[@]#--aptopt=}"
env_inside=(HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8
            DEBIAN_FRONTEND=noninteractive CCACHE_DISABLE=1 TERM=dumb)
for v in http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY; do
  [ -n "${!v:-}" ] && env_inside+=("$v=${!v}")
done
mmdebstrap --variant=minbase --mode=root --quiet "${aptopts[@]}" \
  --customize-hook="date +%s > '$work/t_root'; echo \"cleanroom: root built in \$((\$(date +%s) - $start)) s\"" \
  --customize-hook="tar-in '$work/podbench.tar' /root" \
  --customize-hook="copy-in '$work/inside.sh' '$work/first-command.sh' /root" \
  --customize-hook="chroot \"\$1\" /usr/bin/env -i $(printf '%q ' "${env_inside[@]}")/bin/bash /root/inside.sh" \
  bookworm /dev/null "${sources[@]}"
end=$(date +%s)
echo "cleanroom: PASSED in $((end - start)) s (root $(($(cat "$work/t_root") - start)) s, then the first command and the functional run)"
