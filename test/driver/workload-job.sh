#!/usr/bin/env bash
# The workload job end to end (issue 27; docs/report.md, "The workload
# job"): btc octree.yaml alexnet-dense.yaml --device host --run plans the
# two apps jointly (the committed dev-box tables of docs/results/eval-host-b
# through --app-table, on --cpu-groups 2 + Vulkan/llvmpipe), builds one
# program, and measures the top 2 joint candidates against naive
# co-location and time multiplexing on real data (Kinect clouds,
# CIFAR-10), every task of every stream verified; the report's JSON is
# checked. By default (--same-pu none) the job plans with factor 1 and
# runs no probe; then a short job with --same-pu probe: the given tables
# have no @share rows, so it measures the GPU's same-PU factor (the
# program's --share-probe) and plans with it. Under BTC_TEST_FULL=1
# (scripts/test --full) also the whole job
# with profiling (a fresh cache: both tables and their @corun rows):
# `btc apps/octree.yaml apps/alexnet-dense.yaml --device host --run`,
# about 5 min here.
# Without a Vulkan device: SKIP.
set -euo pipefail
btc=$1 src=$2 work=$3
. "$src/test/common/skip.sh"
rm -rf "$work" && mkdir -p "$work"
btc_test_need_vulkan driver-workload-job
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
# the same-PU factor: null (none measured) or kappa per PU and count > 0;
# only with --same-pu probe
sf = p["same_pu_factor"]
assert p["same_pu"] in ("none", "probe"), p
assert sf is None or p["same_pu"] == "probe", p
assert sf is None or (sf["source"] and all(
    k > 0 for pu in sf["kappa"].values() for k in pu.values())), sf
# the model calibrated to the solo runs (driver/workload_calib.h): the
# table's bound kept, the calibrated one in M's units, fitted from each
# app's solo rate alone, the calibrated solo period the measured one
m = best["merit"]["median"]
assert p["fluid_bound_table"] == p["fluid_bound"], p
bc = p["fluid_bound_calibrated"]
assert bc > 0 and len(p["predicted_calibrated"]) == n, p
assert bc >= max(x for x in p["predicted_calibrated"] if x is not None) - 1e-9, p
assert [a["app"] for a in p["calibration"]] == ["octree", "alexnet_dense"], p["calibration"]
for i, a in enumerate(p["calibration"]):  # colocation's "app": its index
    rate = [s["solo_tasks_per_s"] for s in c["streams"] if s["app"] == i][0]
    # (the report's rates have 6 decimals)
    assert abs(a["solo_measured_ms"] - 1000 / rate) <= 1e-6 * a["solo_measured_ms"], a
    assert a["solo_calibrated_ms"] >= a["solo_measured_ms"] * (1 - 1e-9), a
    assert all(b > 0 for b in a["scale"].values()), a
# the bound's verdict on the chosen's measured M (never a ratio above 1),
# on the calibrated bound
assert p["fluid_bound_judged"] == "calibrated", p
assert p["fluid_bound_holds"] is (m <= bc), (p, best)
# the bound with the capacity measured in the job's other joint runs
# (driver/workload_capacity.h): every verified candidate's rounds, kappa
# >= 1 per PU, so never below the time-shared bound; its verdict on M
for f in c["joint"]:
    if f["verified"]:
        rr = f["rounds_tasks_per_s"]
        assert len(rr) >= 1 and all(len(x) == 2 and all(v > 0 for v in x) for x in rr), f
fc = p["fluid_bound_capacity"]
for units, b0 in (("table", p["fluid_bound_table"]), ("calibrated", bc)):
    x = fc[units]
    assert all(k >= 1 for k in x["kappa"].values()), x
    assert x["judged_runs"] == len(best["rounds_tasks_per_s"]), x
    assert x["from_runs"] == sum(len(f["rounds_tasks_per_s"]) for f in c["joint"]
                                 if f["verified"]) - 1, x
    assert x["bound"] >= b0 - 1e-9, (x, b0)
    assert x["holds"] is (m <= x["bound"]), x
PY
}
# The offline re-judgement (btc tune ... --measurements) reproduces the
# calibrated figures from the report alone: the calibration reads its solo
# rates and nothing of the joint runs.
rejudge() {
  "$btc" tune "$src/apps/octree.yaml" "$src/apps/alexnet-dense.yaml" --device host --cpu-groups 2 \
    --gpu vulkan --top 2 \
    --app-table "octree=$tables/octree-host-9cf1953b57e332c6.csv" \
    --app-table "alexnet_dense=$tables/alexnet_dense-host-14e7e9be97bb8da2.csv" \
    --measurements "$1" --report "$work/rejudge.json" > "$work/rejudge.log" 2>&1 \
    || { cat "$work/rejudge.log"; exit 1; }
  cat "$work/rejudge.log"
  ! grep -q warning "$work/rejudge.log" || { echo "re-judgement: not the job's plan"; exit 1; }
  python3 - "$1" "$work/rejudge.json" << 'PY'
import json, sys
r, j = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert j["kind"] == "workload-rejudge" and j["best"] == r["colocation"]["best"], j
def same(x, y):  # up to the report's 6 decimals of the solo rates
    if isinstance(x, float) or isinstance(y, float):
        return abs(x - y) <= 1e-6 * max(abs(x), abs(y))
    if isinstance(x, dict):
        return x.keys() == y.keys() and all(same(x[k], y[k]) for k in x)
    if isinstance(x, list):
        return len(x) == len(y) and all(same(a, b) for a, b in zip(x, y))
    return x == y
for k in ("fluid_bound_table", "fluid_bound_calibrated", "predicted_calibrated",
          "naive_predicted_calibrated", "calibration", "fluid_bound_holds",
          "fluid_bound_capacity"):
    assert same(j["plan"][k], r["plan"][k]), (k, j["plan"][k], r["plan"][k])
PY
}

"$btc" "$src/apps/octree.yaml" "$src/apps/alexnet-dense.yaml" --device host --cpu-groups 2 \
  --gpu vulkan --run --top 2 --tune-tasks 6 --tune-budget 3 --warmup-s 0.2 \
  --app-table "octree=$tables/octree-host-9cf1953b57e332c6.csv" \
  --app-table "alexnet_dense=$tables/alexnet_dense-host-14e7e9be97bb8da2.csv" \
  -o "$work/w" --report "$work/r.json" > "$work/job.log" 2>&1 || { cat "$work/job.log"; exit 1; }
cat "$work/job.log"
check "$work/r.json" 2
rejudge "$work/r.json"
# the default (--same-pu none): no probe, factor 1 in the plan and bound
! grep -q "^share-probe:" "$work/job.log" || { echo "FAIL: the default job probed"; exit 1; }
grep -q "^same-PU factor: not measured (--same-pu none, the default" "$work/job.log"
grep -q "^  same-PU factor none (--same-pu none: factor 1)" "$work/job.log"
python3 -c 'import json, sys; p = json.load(open(sys.argv[1]))["plan"]; assert p["same_pu"] == "none" and p["same_pu_factor"] is None, p' "$work/r.json"
# the warm-up by time (docs/report.md "The workload job"), said once
[ "$(grep -c "^colocate: warm-up 0.2 s per run: octree#0 [0-9]* tasks, alexnet_dense#0 [0-9]* tasks (at the solo rates" "$work/job.log")" = 1 ] ||
  { echo "FAIL: no single warm-up line"; exit 1; }
python3 -c 'import json, sys; c = json.load(open(sys.argv[1]))["colocation"]; assert c["warmup_s"] == 0.2 and c["rounds_needed"] == 6, (c["warmup_s"], c["rounds_needed"])' "$work/r.json"

# --same-pu probe: the job measures the GPU's same-PU factor (the given
# tables have none) and plans with it; a short measurement
"$btc" "$src/apps/octree.yaml" "$src/apps/alexnet-dense.yaml" --device host --cpu-groups 2 \
  --gpu vulkan --run --top 2 --tune-tasks 4 --tune-budget 1 --same-pu probe --warmup-s 0 \
  --app-table "octree=$tables/octree-host-9cf1953b57e332c6.csv" \
  --app-table "alexnet_dense=$tables/alexnet_dense-host-14e7e9be97bb8da2.csv" \
  -o "$work/w" --report "$work/rp.json" > "$work/probe.log" 2>&1 || { cat "$work/probe.log"; exit 1; }
cat "$work/probe.log"
check "$work/rp.json" 2
rejudge "$work/rp.json"
grep -q "^share-probe: 2 streams together on vulkan: x" "$work/probe.log"
grep -q "^colocate: no warm-up by time (--warmup-s 0): 4 tasks per stream" "$work/probe.log"
python3 -c 'import json, sys; c = json.load(open(sys.argv[1]))["colocation"]; assert c["warmup_s"] == 0 and c["rounds_needed"] == 6, (c["warmup_s"], c["rounds_needed"])' "$work/rp.json"
grep -q "^  same-PU factor measured: vulkan x[0-9.]* at 2 streams; measured by this job's probe" \
  "$work/probe.log"
python3 -c 'import json, sys; p = json.load(open(sys.argv[1]))["plan"]; assert p["same_pu"] == "probe" and p["same_pu_factor"]["kappa"]["vulkan"]["2"] > 0, p' "$work/rp.json"

if [ "${BTC_TEST_FULL:-0}" != 0 ]; then
  "$btc" "$src/apps/octree.yaml" "$src/apps/alexnet-dense.yaml" --device host --run \
    --cache "$work/cache" --tune-tasks 8 --tune-budget 20 --top 2 -o "$work/full" \
    --report "$work/full.json" > "$work/full.log" 2>&1 || { cat "$work/full.log"; exit 1; }
  cat "$work/full.log"
  check "$work/full.json" 2
fi
echo "driver-workload-job: OK"
