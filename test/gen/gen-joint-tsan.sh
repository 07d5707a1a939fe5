#!/usr/bin/env bash
# A joint plan's workload program under ThreadSanitizer (issue 27): two
# octree streams (Kinect frames) and two alexnet-dense streams (CIFAR-10)
# at once, the joint plan's candidate 0 on CPU + Vulkan (llvmpipe; the
# committed dev-box tables, --cpu-groups 2 so that each CPU chunk's OpenMP
# team is its dispatcher alone, as in gen-workload-tsan), the whole
# generated program built with -Db_sanitize=thread: every task of every
# stream verified, no report; two streams of one app share its tables and
# kernels but nothing else; run again with BTRT_VK_STREAMS=one (every
# Vulkan stream on one device, its queue shared), and so with the fence
# waits polled (BTRT_VK_WAIT=spin); then its --share-probe
# (docs/scheduler.md, "Same-PU capacity"), also clean. Only Mesa's driver
# and its LLVM JIT are suppressed (data/tsan-mesa.supp). Without a Vulkan
# device or TSan: SKIP.
set -euo pipefail
btc=$1 src=$2 work=$3
. "$src/test/gen/tsan.sh"
. "$src/test/gen/joint.sh"
tsan_start gen-joint-tsan
dir=$work/w
joint_gen gen.log --device host --cpu-groups 2 \
  --gpu vulkan --app-table "octree=$joint_octree_table" --app-table "alexnet_dense=$joint_alexnet_table" \
  --streams octree=2 --streams alexnet_dense=2 --top 1 -o "$dir"
joint_build "$dir" "${tsan_setup[@]}" -Dcuda=disabled
rc=0
TSAN_OPTIONS=$tsan_options "$prog" --tasks 8 --quiet --report "$work/r.json" > "$work/run.txt" 2>&1 || rc=$?
cat "$work/run.txt"
[ "$rc" = 0 ] || { echo "FAIL: exit status $rc (66: a ThreadSanitizer report)"; exit 1; }
# Again with every Vulkan stream's context on one device (llvmpipe has one
# queue, so by default each stream gets a device of its own; docs/runtime.md,
# "Several streams"): the shared device's queue and its mutex under TSan.
TSAN_OPTIONS=$tsan_options BTRT_VK_STREAMS=one "$prog" --tasks 8 --quiet \
  --report "$work/r-one.json" > "$work/run-one.txt" 2>&1 || rc=$?
cat "$work/run-one.txt"
[ "$rc" = 0 ] || { echo "FAIL: BTRT_VK_STREAMS=one: exit status $rc (66: a ThreadSanitizer report)"; exit 1; }
TSAN_OPTIONS=$tsan_options BTRT_VK_STREAMS=one BTRT_VK_WAIT=spin "$prog" --tasks 8 --quiet \
  --report "$work/r-spin.json" > "$work/run-spin.txt" 2>&1 || rc=$?
cat "$work/run-spin.txt"
[ "$rc" = 0 ] || { echo "FAIL: BTRT_VK_WAIT=spin: exit status $rc (66: a ThreadSanitizer report)"; exit 1; }
python3 - "$work/r.json" "$work/r-one.json" "$work/r-spin.json" << 'PY'
import json, sys
for path, one in ((sys.argv[1], False), (sys.argv[2], True), (sys.argv[3], True)):
    r = json.load(open(path))
    assert r["verified"] is True and r["joint"] == 0, r
    assert [s["app"] for s in r["streams"]] == ["octree", "octree", "alexnet_dense", "alexnet_dense"], r
    assert all(s["verified"] is True and s["measured_tasks"] == 8 - r["warmup"] for s in r["streams"]), r
    devices = [s["vk_device"] for s in r["streams"] if "vk_device" in s]
    assert devices, r
    # one device: every Vulkan stream on the first one's; else one each
    assert devices == ([devices[0]] * len(devices) if one else sorted(set(devices))), (path, devices)
PY
# The same-PU capacity probe (--share-probe: 4 streams' GPU stages on
# their threads at once, each its own Vulkan device, pool and dispatcher)
# under TSan: exit 0, a row for each count 2..4. Its inputs are made by
# the CPU kernels on the main thread, one OpenMP team of one thread (as
# --cpu-groups 2 gives the pipelines: libgomp's own threads are not
# instrumented).
rc=0
OMP_NUM_THREADS=1 TSAN_OPTIONS=$tsan_options "$prog" --share-probe=100 > "$work/probe.txt" 2>&1 ||
  rc=$?
cat "$work/probe.txt"
[ "$rc" = 0 ] || { echo "FAIL: --share-probe: exit status $rc (66: a ThreadSanitizer report)"; exit 1; }
[ "$(grep -c '^@share,vulkan\*[234],isolated,' "$work/probe.txt")" = 3 ] ||
  { echo "FAIL: --share-probe: not 3 @share rows"; exit 1; }
echo "gen-joint-tsan: OK"
