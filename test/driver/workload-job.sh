#!/usr/bin/env bash
# The workload job end to end (issue 27; docs/report.md, "The workload
# job"): btc octree.yaml alexnet-dense.yaml --device host --run plans the
# two apps jointly (the committed dev-box tables of docs/results/eval-host-b
# through --app-table, on --cpu-groups 2 + Vulkan/llvmpipe), builds one
# program, and measures the top 2 joint candidates against naive
# co-location and time multiplexing on real data (Kinect clouds,
# CIFAR-10), every task of every stream verified; the report's JSON is
# checked. The given tables have no @share rows, so the job measures the
# GPU's same-PU factor (the program's --share-probe) and plans with it. Under BTC_TEST_FULL=1 (scripts/test --full) also the whole job
# with profiling (a fresh cache: both tables and their @corun rows):
# `btc apps/octree.yaml apps/alexnet-dense.yaml --device host --run`,
# about 5 min here.
# Without a Vulkan device: SKIP.
set -euo pipefail
btc=$1 src=$2 work=$3
. "$src/test/common/skip.sh"
rm -rf "$work" && mkdir -p "$work"
if ! "$btc" device host | grep -q "kind: vulkan"; then
  btc_test_skip VULKAN driver-workload-job "no Vulkan device (not even llvmpipe)"
fi
tables=$src/docs/results/eval-host-b/cache
check() {
  python3 - "$1" "$2" << 'PY'
import json, sys
r, n = json.load(open(sys.argv[1])), int(sys.argv[2])
assert r["kind"] == "workload" and r["device"] == "host", r
assert [s["app"] for s in r["streams"]] == ["octree", "alexnet_dense"], r["streams"]
p = r["plan"]
assert len(p["predicted"]) == n and all(x > 0 for x in p["predicted"]), p
assert p["fluid_bound"] >= max(p["predicted"]) - 1e-9, p
c = r["colocation"]
assert c["best"] in range(n) and len(c["joint"]) == n, c
assert [s["solo_schedule"] for s in c["streams"]] == [s["solo_schedule"] for s in r["streams"]]
assert all(s["solo_tasks_per_s"] > 0 for s in c["streams"]), c["streams"]
best = c["joint"][c["best"]]
for f in (best, c["naive"], c["multiplex"]):
    assert f["verified"] is True and f["error"] is None and f["rounds"] >= 1, f
    assert f["merit"]["median"] > 0 and all(x > 0 for x in f["tasks_per_s"]), f
for g in ("gain_naive", "gain_multiplex"):
    assert c[g]["median"] > 0, c[g]
# the same-PU factor: null (none measured) or kappa per PU and count > 0
sf = p["same_pu_factor"]
assert sf is None or (sf["source"] and all(
    k > 0 for pu in sf["kappa"].values() for k in pu.values())), sf
# the bound's verdict on the chosen's measured M (never a ratio above 1)
assert p["fluid_bound_holds"] is (best["merit"]["median"] <= p["fluid_bound"]), (p, best)
PY
}
"$btc" "$src/apps/octree.yaml" "$src/apps/alexnet-dense.yaml" --device host --cpu-groups 2 \
  --gpu vulkan --run --top 2 --tune-tasks 6 --tune-budget 3 \
  --app-table "octree=$tables/octree-host-9cf1953b57e332c6.csv" \
  --app-table "alexnet_dense=$tables/alexnet_dense-host-14e7e9be97bb8da2.csv" \
  -o "$work/w" --report "$work/r.json" > "$work/job.log" 2>&1 || { cat "$work/job.log"; exit 1; }
cat "$work/job.log"
check "$work/r.json" 2
# the job measured the GPU's same-PU factor (the given tables have none)
# and planned with it
grep -q "^share-probe: 2 streams together on vulkan: x" "$work/job.log"
grep -q "^  same-PU factor measured: vulkan x[0-9.]* at 2 streams; measured by this job's probe" \
  "$work/job.log"
python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["plan"]["same_pu_factor"]["kappa"]["vulkan"]["2"] > 0' "$work/r.json"

if [ "${BTC_TEST_FULL:-0}" != 0 ]; then
  "$btc" "$src/apps/octree.yaml" "$src/apps/alexnet-dense.yaml" --device host --run \
    --cache "$work/cache" --tune-tasks 8 --tune-budget 20 --top 2 -o "$work/full" \
    --report "$work/full.json" > "$work/full.log" 2>&1 || { cat "$work/full.log"; exit 1; }
  cat "$work/full.log"
  check "$work/full.json" 2
fi
echo "driver-workload-job: OK"
