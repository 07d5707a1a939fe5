#!/usr/bin/env bash
# A workload project from the joint plan (issue 27; docs/codegen.md,
# "Workload projects"): btc gen of octree (2 streams, Kinect clouds) and
# alexnet-dense (1 stream, CIFAR-10) without --chunks plans them jointly
# on this machine's CPU + Vulkan (llvmpipe; --cpu-groups 2, the committed
# dev-box tables of docs/results/eval-host-b) and builds ONE program with
# the three streams and the top 3 joint candidates. --list-json is parsed
# and checked against the plan's shape; the default run (candidate 0),
# --joint K and --placement app verify every task of every stream and
# their reports name the candidate's schedules; bad values are refused.
# The service-core placement (docs/codegen.md, "Service cores per
# stream") is checked on the H100 machine's shape (its committed Vulkan
# tables; built here, only listed): the io threads and GPU dispatchers of
# the 8 streams spread over the three service cores by their planned
# load, not piled by role; the CPU chunks of several streams on its one CPU PU get
# disjoint core sets (gen-joint-cores runs such a split). Without a
# Vulkan device: SKIP.
set -euo pipefail
btc=$1 src=$2 work=$3
. "$src/test/common/skip.sh"
rm -rf "$work" && mkdir -p "$work"
if ! "$btc" device host | grep -q "kind: vulkan"; then
  btc_test_skip VULKAN gen-joint "no Vulkan device (not even llvmpipe): cannot run the Vulkan chunks"
fi
octree=$src/apps/octree.yaml alexnet=$src/apps/alexnet-dense.yaml
tables=$src/docs/results/eval-host-b/cache
dir=$work/w
"$btc" gen "$octree" "$alexnet" --device host --cpu-groups 2 --gpu vulkan \
  --app-table "octree=$tables/octree-host-9cf1953b57e332c6.csv" \
  --app-table "alexnet_dense=$tables/alexnet_dense-host-14e7e9be97bb8da2.csv" \
  --streams octree=2 --top 3 -o "$dir" --build > "$work/gen.log" 2>&1 ||
  { cat "$work/gen.log"; exit 1; }
prog=$(ls "$dir"/build/*-workload)
"$prog" --list-json > "$work/list.json"
"$prog" --list

# The list: 3 streams (octree, octree, alexnet_dense), 3 candidates; each
# candidate's schedule of a stream is one of its app's, its label that
# schedule's; the solo schedule in range; predictions best first.
python3 - "$work/list.json" > "$work/joint.txt" << 'PY'
import json, sys
l = json.load(open(sys.argv[1]))
s, j = l["streams"], l["joint"]
assert [x["app"] for x in s] == ["octree", "octree", "alexnet_dense"], s
assert [x["index"] for x in s] == [0, 1, 2], s
assert s[0]["schedules"] == s[1]["schedules"], s
for x in s:
    assert 0 <= x["solo_schedule"] < len(x["schedules"]), x
assert len(j) == 3 and [c["index"] for c in j] == [0, 1, 2], j
for c in j:
    assert c["predicted"] > 0 and len(c["streams"]) == 3, c
    for i, cs in enumerate(c["streams"]):
        assert 0 <= cs["schedule"] < len(s[i]["schedules"]), cs
        assert cs["label"] == s[i]["schedules"][cs["schedule"]], cs
        assert cs["rate"] > 0 and len(cs["service_cores"]) == 3, cs
        # two one-core CPU PUs: no service cores (nothing pinned)
        assert cs["service_cores"] == [-1, -1, -1], cs
        # and no core sets: a chunk alone on its PU, or several on one
        # core (more chunks than cores), keeps its schedule's cores
        assert all(x == [] for x in cs["chunk_cores"]), cs
assert all(a["predicted"] >= b["predicted"] for a, b in zip(j, j[1:])), j
# every schedule of an app is used by a candidate or is its solo one
for i, x in enumerate(s):
    used = {c["streams"][k]["schedule"] for c in j for k in range(3) if s[k]["app"] == x["app"]}
    assert used | {x["solo_schedule"]} == set(range(len(x["schedules"]))), (x, used)
# the candidate run by --joint: the last one that differs from candidate 0
last = max(k for k in range(3) if k == 0 or
           [c["schedule"] for c in j[k]["streams"]] != [c["schedule"] for c in j[0]["streams"]])
print(last, *[c["schedule"] for c in j[0]["streams"]], *[c["schedule"] for c in j[last]["streams"]])
PY
read -r K s0 s1 s2 k0 k1 k2 < "$work/joint.txt"

# check_report FILE JOINT PLACEMENT SCHEDULES...: every stream verified 6
# tasks on the schedules given.
check_report() {
  python3 - "$@" << 'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["verified"] is True and r["joint"] == int(sys.argv[2]), r
assert r["placement"] == sys.argv[3], r
assert [s["stream"] for s in r["streams"]] == [0, 1, 2], r
assert [s["schedule"] for s in r["streams"]] == [int(x) for x in sys.argv[4:]], r
for s in r["streams"]:
    assert s["verified"] is True and s["tasks"] == 6 and s["tasks_per_s"] > 0, s
PY
}
export BTRT_NO_PIN=1
# Candidate 0 by default, every task of every stream checked.
"$prog" --tasks 6 --quiet --report "$work/r0.json" > "$work/r0.txt" 2>&1 ||
  { cat "$work/r0.txt"; exit 1; }
check_report "$work/r0.json" 0 plan "$s0" "$s1" "$s2"
# --joint K runs candidate K; --pace paces every stream at its planned rate.
"$prog" --tasks 6 --quiet --joint "$K" --pace --report "$work/rk.json" > "$work/rk.txt" 2>&1 ||
  { cat "$work/rk.txt"; exit 1; }
check_report "$work/rk.json" "$K" plan "$k0" "$k1" "$k2"
python3 - "$work/rk.json" "$work/list.json" "$K" << 'PY'
import json, sys
r, l, k = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3])
want = [c["rate"] for c in l["joint"][k]["streams"]]
got = [s["rate"] for s in r["streams"]]
assert all(abs(a - b) <= 1e-6 * b for a, b in zip(got, want)), (got, want)
PY
# --share: fair admission (docs/runtime.md, "Several streams"); every
# task still checked, the shares in the report.
"$prog" --tasks 6 --quiet --share 0=1 --share 1=1 --share 2=8 \
  --report "$work/rf.json" > "$work/rf.txt" 2>&1 || { cat "$work/rf.txt"; exit 1; }
python3 - "$work/rf.json" << 'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["verified"] is True and [s["share"] for s in r["streams"]] == [1, 1, 8], r
assert all(s["verified"] is True and s["tasks"] == 6 for s in r["streams"]), r
PY
# --placement app, and --schedule overriding one stream of the candidate.
"$prog" --tasks 6 --quiet --placement app --schedule "2=$s2" --joint "$K" \
  --report "$work/ra.json" > "$work/ra.txt" 2>&1 || { cat "$work/ra.txt"; exit 1; }
check_report "$work/ra.json" "$K" app "$k0" "$k1" "$s2"
# Bad values: exit 2 with a message.
for bad in "--joint 3" "--joint x" "--placement both" "--share 0=-1" "--share 9=1"; do
  rc=0
  # shellcheck disable=SC2086
  "$prog" $bad --tasks 2 > "$work/bad.txt" 2>&1 || rc=$?
  [ "$rc" = 2 ] || { echo "FAIL: $bad: exit $rc, expected 2"; cat "$work/bad.txt"; exit 1; }
done

# Service cores on the H100 machine's shape (16 cores, one CPU PU; the
# single-app service cores 13, 14, 15): 4 + 4 streams, 2 candidates.
# Built with -Dcuda=disabled: the machine has CUDA PUs, the Vulkan
# candidates need none of its kernels, and only --list-json runs here
# (nvcc on octree's kernels took 8 of the build's 11 s).
h100=$src/docs/results/eval-h100-c
"$btc" gen "$octree" "$alexnet" --device "$h100/octree-vulkan-g1/host-g1.yaml" --gpu vulkan \
  --app-table "octree=$(ls "$h100"/octree-vulkan-g1/octree-host-*.csv)" \
  --app-table "alexnet_dense=$(ls "$h100"/alexnet-dense-vulkan-g1/alexnet_dense-host-*.csv)" \
  --streams octree=4 --streams alexnet_dense=4 --top 2 -o "$work/h" \
  > "$work/genh.log" 2>&1 || { cat "$work/genh.log"; exit 1; }
meson setup "$work/h/build" "$work/h" -Dcuda=disabled >> "$work/genh.log" 2>&1 &&
  ninja -C "$work/h/build" >> "$work/genh.log" 2>&1 || { cat "$work/genh.log"; exit 1; }
"$(ls "$work"/h/build/*-workload)" --list-json > "$work/h.json"
python3 - "$work/h.json" << 'PY'
import json, sys
l = json.load(open(sys.argv[1]))
assert len(l["streams"]) == 8 and len(l["joint"]) == 2, l
for c in l["joint"]:
    seq = []
    for cs in c["streams"]:
        src, sink, gpu = cs["service_cores"]
        assert src >= 0 and sink >= 0, cs
        seq += [src, sink] + ([gpu] if gpu >= 0 else [])
    # the three single-app service cores serve every stream (the one CPU
    # PU runs chunks), each service thread on one of them
    assert set(seq) == {13, 14, 15}, seq
    # balanced by load, not piled by role: the sinks (the io checks) and
    # the GPU dispatchers of the streams are spread over the cores (round
    # robin by role put every sink on 14 and every dispatcher on 15)
    sinks = {cs["service_cores"][1] for cs in c["streams"]}
    gpus = {cs["service_cores"][2] for cs in c["streams"] if cs["service_cores"][2] >= 0}
    assert len(sinks) >= 2 and len(gpus) >= 2, (sinks, gpus, c["streams"])
# Chunk cores (docs/codegen.md, "Chunk cores per stream"): the CPU chunks
# of a candidate's streams on the one CPU PU split its 13 chunk cores
# (0-12) into disjoint runs, at least one each, together all 13; GPU
# chunks keep their own cores.
split = False
for c in l["joint"]:
    sets = []
    for cs in c["streams"]:
        pus = [ch.split(":")[0] for ch in cs["label"].split()]
        assert len(cs["chunk_cores"]) == len(pus), cs
        for pu, cores in zip(pus, cs["chunk_cores"]):
            if pu == "cpu":
                sets.append(cores)
            else:
                assert cores == [], cs
    if len(sets) < 2:
        assert sets == [] or sets == [[]], c
        continue
    split = True
    assert all(len(x) >= 1 for x in sets), sets
    flat = sorted(x for s in sets for x in s)
    assert flat == list(range(13)), sets
    assert all(s == list(range(s[0], s[0] + len(s))) for s in sets), sets
assert split, "no candidate with CPU chunks of several streams"
PY
echo "gen-joint: OK"
