#!/usr/bin/env bash
# A joint plan's workload program under ThreadSanitizer (issue 27): two
# octree streams (Kinect frames) and two alexnet-dense streams (CIFAR-10)
# at once, the joint plan's candidate 0 on CPU + Vulkan (llvmpipe; the
# committed dev-box tables, --cpu-groups 2 so that each CPU chunk's OpenMP
# team is its dispatcher alone, as in gen-workload-tsan), the whole
# generated program built with -Db_sanitize=thread: every task of every
# stream verified, no report; two streams of one app share its tables and
# kernels but nothing else. Only Mesa's driver and its LLVM JIT are
# suppressed (data/tsan-mesa.supp). Without a Vulkan device or TSan: SKIP.
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
python3 - "$work/r.json" << 'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["verified"] is True and r["joint"] == 0, r
assert [s["app"] for s in r["streams"]] == ["octree", "octree", "alexnet_dense", "alexnet_dense"], r
assert all(s["verified"] is True and s["tasks"] == 8 for s in r["streams"]), r
PY
echo "gen-joint-tsan: OK"
