#!/usr/bin/env bash
# Co-located CPU chunks on disjoint core sets (docs/codegen.md, "Chunk
# cores per stream"): the dev box as ONE CPU PU of its 2 cores plus
# Vulkan (llvmpipe; the committed dev-box tables of docs/results/
# eval-host-b without their cpu1 rows), one octree stream (Kinect clouds)
# and one alexnet-dense stream (CIFAR-10), planned jointly: every
# candidate puts a chunk of each stream on cpu0, so each gets its own
# core of the two (its share rounded, at least 1). --list-json names the
# core sets; the default run (--cores split) pins each CPU chunk's team
# to its set, --cores shared and --placement app to all of the PU's
# cores, as the report's "cores" and each chunk's "cores" say; every task
# of both streams is verified. With "tsan" as a 4th argument (gen-joint-
# cores-tsan) the program is built with -Db_sanitize=thread and the split
# run must be ThreadSanitizer-clean. Without a Vulkan device: SKIP.
set -euo pipefail
btc=$1 src=$2 work=$3 mode=${4:-plain}
name=gen-joint-cores$([ "$mode" = tsan ] && echo -tsan || true)
. "$src/test/gen/tsan.sh"
. "$src/test/gen/joint.sh"
joint_1pu_start "$name" "$mode"
grep -v ',cpu1,' "$joint_octree_table" > "$work/octree.csv"
grep -v ',cpu1,' "$joint_alexnet_table" > "$work/alexnet.csv"
joint_1pu_build "$mode" --device "$work/host-1pu.yaml" \
  --gpu vulkan --app-table "octree=$work/octree.csv" --app-table "alexnet_dense=$work/alexnet.csv" \
  --top 2

# Each candidate: both streams run a chunk on cpu0, each on one core of
# its own (disjoint, together the PU's two); GPU chunks keep their own.
python3 - "$work/list.json" << 'PY'
import json, sys
from joint_list import pu_core_sets
l = json.load(open(sys.argv[1]))
assert [s["app"] for s in l["streams"]] == ["octree", "alexnet_dense"], l
for c in l["joint"]:
    sets = pu_core_sets(c, "cpu0")
    assert all(len(cores) == 1 for cores in sets), c
    assert sorted(cores[0] for cores in sets) == [0, 1], c
PY

# check FILE CORES WANT...: both streams verified 6 tasks asked; the report's
# "cores" is CORES and stream i's cpu0 chunk ran on the cores WANT[i]
# ("0,1" or a list-json candidate's set).
check() {
  python3 - "$@" << 'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["verified"] is True and r["cores"] == sys.argv[2], (r["cores"], sys.argv[2])
assert [s["stream"] for s in r["streams"]] == [0, 1], r
for s, want in zip(r["streams"], sys.argv[3:]):
    # 6 asked; the warm-up at least the pool, streamed besides (issue 25)
    assert s["verified"] is True and s["measured_tasks"] == 6 - r["warmup"], s
    assert s["tasks"] == 6 + s["warmup"] - r["warmup"] and s["warmup"] >= s["pool"], s
    got = [c["cores"] for c in s["chunks"] if c["pu"] == "cpu0"]
    assert got == [[int(x) for x in want.split(",")]], (got, want)
PY
}
read -r c0 c1 < <(python3 -c '
import json, sys
l = json.load(open(sys.argv[1]))
print(*[",".join(map(str, sum(s["chunk_cores"], []))) for s in l["joint"][0]["streams"]])' \
  "$work/list.json")
export BTRT_NO_PIN=1
[ "$mode" = tsan ] && joint_env=(TSAN_OPTIONS="$tsan_options")
joint_run split
check "$work/split.json" split "$c0" "$c1"
if [ "$mode" = tsan ]; then
  echo "$name: OK"
  exit 0
fi
joint_run shared --cores shared
check "$work/shared.json" shared 0,1 0,1
joint_run app --placement app
check "$work/app.json" shared 0,1 0,1
joint_refuses --cores both
echo "$name: OK"
