#!/usr/bin/env bash
# The placement of joint candidate 0 for 4 octree + 4 alexnet-dense
# streams, CUDA and Vulkan, on the H100 machine's shape (test/gen/data/h100box.yaml: 16
# cores, one CPU PU, chunk cores 0-12, single-app service cores 13-15),
# planned as the workload job of leases M and N planned it (issue 27:
# their tables in docs/results/eval-h100-c, --cpu-groups 1, --mode
# isolated). Only btc gen runs (no build): workload.c's tables are read.
# Octree#1-#3 run the same chunks (cuda:0-5 cpu:6; vulkan:0 cpu:1-6) at
# the same rate, so their CPU chunks must get the same number of cores
# (the old one-core-at-a-time rounding gave them 2, 2, 1 and 3, 3, 2:
# octree#3's chunk took 1.8x and 1.4x the others' time on lease N); every
# chunk core set is a run of 0-12, the sets disjoint and together 0-12,
# none on a service core.
set -euo pipefail
btc=$1 src=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
h100=$src/docs/results/eval-h100-c
for gpu in cuda vulkan; do
  if ! "$btc" "$src/apps/octree.yaml" "$src/apps/alexnet-dense.yaml" \
    --device "$src/test/gen/data/h100box.yaml" --cpu-groups 1 --gpu $gpu --mode isolated \
    --streams octree=4 --streams alexnet_dense=4 --top 1 \
    --app-table "octree=$(ls "$h100"/octree-$gpu-g1/octree-host-*.csv)" \
    --app-table "alexnet_dense=$(ls "$h100"/alexnet-dense-$gpu-g1/alexnet_dense-host-*.csv)" \
    -o "$work/$gpu" > "$work/$gpu.log" 2>&1; then
    cat "$work/$gpu.log"
    echo "FAIL: btc gen --gpu $gpu"
    exit 1
  fi
  python3 - "$work/$gpu/workload.c" << 'PY'
import re, sys
text = open(sys.argv[1]).read()
# joint_0_S_cE[] = { cores }: stream S's entry E (its chunk table's order)
sets = {}
for s, e, cores in re.findall(r"joint_0_(\d+)_c(\d+)\[\] = \{([^}]*)\}", text):
    sets.setdefault(int(s), {})[int(e)] = [int(x) for x in cores.split(",")]
streams = re.findall(
    r"\{ \.schedule = (\d+), \.service_cores = \{ (-?\d+), (-?\d+), (-?\d+) \}[^}]*?\}, /\* (\S+) \*/",
    text)
names = [n for *_, n in streams]
assert names == [f"octree#{i}" for i in range(4)] + [f"alexnet_dense#{i}" for i in range(4)], names
# the plans of the leases: octree#1-#3 on one schedule, #0 on another
sched = [int(x[0]) for x in streams]
assert sched[1] == sched[2] == sched[3] != sched[0], sched
counts = {s: [len(c) for c in sets[s].values()] for s in sets}
assert all(s in counts for s in (0, 1, 2, 3)), counts
assert counts[1] == counts[2] == counts[3], counts
# identical streams (one app, one schedule, one rate) get equally many
by_sched = {}
for s, x in enumerate(streams):
    by_sched.setdefault((x[4].split("#")[0], x[0]), []).append(counts.get(s))
for k, v in by_sched.items():
    assert all(c == v[0] for c in v), (k, v)
flat = sorted(c for s in sets.values() for cs in s.values() for c in cs)
assert flat == list(range(13)), flat
for s in sets.values():
    for cs in s.values():
        assert cs == list(range(cs[0], cs[0] + len(cs))), cs
service = {int(c) for x in streams for c in x[1:4] if int(c) >= 0}
assert service <= {13, 14, 15}, service
print(sys.argv[1], {names[s]: sets[s] for s in sets})
PY
done
echo "gen-joint-place: OK"
