#!/usr/bin/env bash
# A CPU-only pipeline generated for the Jetson (aarch64 Linux) cross-builds
# with Debian's gcc-aarch64-linux-gnu and runs under qemu-user. Without
# them: SKIP, a failure under BTC_REQUIRE_CROSS=1 (scripts/test).
set -euo pipefail
btc=$1 src=$2 work=$3
. "$src/test/common/skip.sh"
for tool in aarch64-linux-gnu-gcc qemu-aarch64; do
  command -v $tool > /dev/null ||
    btc_test_skip CROSS gen-cross "$tool is not installed (scripts/setup installs it)"
done
rm -rf "$work" && mkdir -p "$work"
"$btc" gen "$src/examples/vecadd/vecadd.yaml" --device jetson-orin-nano \
  --chunks cpu:0-2 -o "$work/vecadd-jetson" --build > "$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
prog=$work/vecadd-jetson/build/vecadd-pipeline
file "$prog" | grep -q "ARM aarch64" || { file "$prog"; echo "FAIL: not an aarch64 binary"; exit 1; }
out=$(BTRT_NO_PIN=1 qemu-aarch64 -L /usr/aarch64-linux-gnu "$prog" --schedule 0 --tasks 12 --quiet)
echo "$out"
grep -q "^verified 12 tasks" <<< "$out"
# This sysroot has no libcjson: the program builds without it
# (btrt_report_none.c) and refuses --report with a message, exit 1.
if ! PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig pkg-config --exists libcjson; then
  set +e
  msg=$(BTRT_NO_PIN=1 qemu-aarch64 -L /usr/aarch64-linux-gnu "$prog" --schedule 0 --tasks 12 \
    --quiet --report "$work/r.json" 2>&1 > /dev/null)
  st=$?
  set -e
  [ "$st" = 1 ] || { echo "FAIL: --report without libcjson exited $st, expected 1"; exit 1; }
  grep -q "no JSON library" <<< "$msg" || { echo "$msg"; echo "FAIL: no message"; exit 1; }
  [ ! -e "$work/r.json" ] || { echo "FAIL: a report without libcjson"; exit 1; }
fi
