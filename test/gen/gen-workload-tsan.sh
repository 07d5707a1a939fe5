#!/usr/bin/env bash
# The two-app workload program of gen-workload under ThreadSanitizer: octree
# (Kinect frames) and alexnet-dense (CIFAR-10) at once, CPU + Vulkan
# (llvmpipe), the whole generated program (runtime, io, both apps' tables
# and kernels) built with -Db_sanitize=thread, every task of both streams
# verified, no report. The CPU PU is split into 1-core PUs (--cpu-groups 2)
# so that each CPU chunk's OpenMP team is its dispatcher alone: libgomp is
# not instrumented, and a team of one starts no libgomp thread. Only
# Mesa's driver and its LLVM JIT are suppressed (data/tsan-mesa.supp).
# Without a Vulkan device: SKIP (a failure under BTC_REQUIRE_VULKAN=1);
# without TSan: SKIP.
set -euo pipefail
btc=$1 src=$2 work=$3
. "$src/test/gen/tsan.sh"
tsan_start gen-workload-tsan
"$btc" device host --cpu-groups 2 > "$work/device.txt"
cpus=($(awk '/name:/ {n=$3} /kind: cpu/ {print n}' "$work/device.txt"))
gpu=$(awk '/name:/ {n=$3} /kind: vulkan/ {print n; exit}' "$work/device.txt")
if [ "${#cpus[@]}" -lt 2 ]; then
  echo "gen-workload-tsan: SKIP: fewer than 2 one-core CPU PUs" >&2
  exit 77
fi
dir=$work/w
"$btc" gen "$src/apps/octree.yaml" "$src/apps/alexnet-dense.yaml" --device host --cpu-groups 2 \
  --gpu vulkan --chunks "octree=${cpus[0]}:0-2,$gpu:3-6" \
  --chunks "alexnet_dense=${cpus[1]}:0-3,$gpu:4-8" -o "$dir" > "$work/gen.log" 2>&1 ||
  { cat "$work/gen.log"; exit 1; }
(meson setup "$dir/build" "$dir" "${tsan_setup[@]}" -Dcuda=disabled &&
  ninja -C "$dir/build") > "$work/build.log" 2>&1 || { tail -30 "$work/build.log"; exit 1; }
prog=$(ls "$dir"/build/*-workload)
rc=0
TSAN_OPTIONS=$tsan_options "$prog" --tasks 8 --quiet --report "$work/r.json" > "$work/run.txt" 2>&1 ||
  rc=$?
cat "$work/run.txt"
[ "$rc" = 0 ] || { echo "FAIL: exit status $rc (66: a ThreadSanitizer report)"; exit 1; }
grep -q "^stream 0 (octree): verified" "$work/run.txt"
grep -q "^stream 1 (alexnet_dense): verified" "$work/run.txt"
# 8 tasks measured after the warm-up asked; each stream's warm-up at
# least its pool, the extra streamed besides (issue 25; was "verified 8
# tasks")
python3 - "$work/r.json" << 'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for s in r["streams"]:
    assert s["warmup"] == max(r["warmup"], s["pool"]), s
    assert s["tasks"] == 8 + s["warmup"] - r["warmup"] and s["measured_tasks"] == 8 - r["warmup"], s
PY
echo "gen-workload-tsan: OK"
