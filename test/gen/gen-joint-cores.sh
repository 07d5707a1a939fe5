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
rm -rf "$work" && mkdir -p "$work"
tsan_need_vulkan "$name"
[ "$mode" = tsan ] && tsan_need_cc "$name"
cat > "$work/host-1pu.yaml" << 'YAML'
device: host
description: the dev box as one CPU PU of its 2 cores (gen-joint-cores)
os: linux
arch: x86_64
pus:
  - name: cpu0
    kind: cpu
    cores: [0, 1]
  - name: vulkan
    kind: vulkan
    select: 0
    unified_memory: true
    cpu_backed: true
    table_column: vulkan
YAML
tables=$src/docs/results/eval-host-b/cache
grep -v ',cpu1,' "$tables/octree-host-9cf1953b57e332c6.csv" > "$work/octree.csv"
grep -v ',cpu1,' "$tables/alexnet_dense-host-14e7e9be97bb8da2.csv" > "$work/alexnet.csv"
dir=$work/w
"$btc" gen "$src/apps/octree.yaml" "$src/apps/alexnet-dense.yaml" --device "$work/host-1pu.yaml" \
  --gpu vulkan --app-table "octree=$work/octree.csv" --app-table "alexnet_dense=$work/alexnet.csv" \
  --top 2 -o "$dir" > "$work/gen.log" 2>&1 || { cat "$work/gen.log"; exit 1; }
setup=(-Dcuda=disabled)
[ "$mode" = tsan ] && setup+=(-Db_sanitize=thread -Dbuildtype=debugoptimized)
(meson setup "$dir/build" "$dir" "${setup[@]}" && ninja -C "$dir/build") > "$work/build.log" 2>&1 ||
  { tail -30 "$work/build.log"; exit 1; }
prog=$(ls "$dir"/build/*-workload)
"$prog" --list-json > "$work/list.json"

# Each candidate: both streams run a chunk on cpu0, each on one core of
# its own (disjoint, together the PU's two); GPU chunks keep their own.
python3 - "$work/list.json" << 'PY'
import json, sys
l = json.load(open(sys.argv[1]))
assert [s["app"] for s in l["streams"]] == ["octree", "alexnet_dense"], l
for c in l["joint"]:
    sets = []
    for cs in c["streams"]:
        pus = [ch.split(":")[0] for ch in cs["label"].split()]
        assert len(cs["chunk_cores"]) == len(pus), cs
        for pu, cores in zip(pus, cs["chunk_cores"]):
            if pu == "cpu0":
                assert len(cores) == 1, cs
                sets.append(cores[0])
            else:
                assert cores == [], cs
    assert sorted(sets) == [0, 1], c
PY

# check FILE CORES WANT...: both streams verified 6 tasks; the report's
# "cores" is CORES and stream i's cpu0 chunk ran on the cores WANT[i]
# ("0,1" or a list-json candidate's set).
check() {
  python3 - "$@" << 'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["verified"] is True and r["cores"] == sys.argv[2], (r["cores"], sys.argv[2])
assert [s["stream"] for s in r["streams"]] == [0, 1], r
for s, want in zip(r["streams"], sys.argv[3:]):
    assert s["verified"] is True and s["tasks"] == 6, s
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
run() { # run NAME ARGS...: the program on 6 tasks a stream, its report NAME.json
  local n=$1
  shift
  local rc=0
  if [ "$mode" = tsan ]; then
    TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 suppressions=$src/test/gen/data/tsan-mesa.supp" \
      "$prog" --tasks 6 --quiet --report "$work/$n.json" "$@" > "$work/$n.txt" 2>&1 || rc=$?
  else
    "$prog" --tasks 6 --quiet --report "$work/$n.json" "$@" > "$work/$n.txt" 2>&1 || rc=$?
  fi
  [ "$rc" = 0 ] || { cat "$work/$n.txt"; echo "FAIL: $n: exit $rc (66: a ThreadSanitizer report)"; exit 1; }
}
run split
check "$work/split.json" split "$c0" "$c1"
if [ "$mode" = tsan ]; then
  echo "$name: OK"
  exit 0
fi
run shared --cores shared
check "$work/shared.json" shared 0,1 0,1
run app --placement app
check "$work/app.json" shared 0,1 0,1
rc=0
"$prog" --cores both --tasks 2 > "$work/bad.txt" 2>&1 || rc=$?
[ "$rc" = 2 ] || { echo "FAIL: --cores both: exit $rc, expected 2"; cat "$work/bad.txt"; exit 1; }
echo "$name: OK"
