#!/usr/bin/env bash
# A workload project (issue 27; docs/codegen.md, "Workload projects"):
# btc gen of two apps with per-app schedules builds ONE program that runs
# octree on real Kinect frames (data/pointclouds) and alexnet-dense on
# real CIFAR-10 images at once, CPU + Vulkan (llvmpipe here); every task
# of both streams is checked against its app's sequential reference; the
# report and the trace give each stream its own figures; a paced run is
# verified; SIGINT stops every stream's threads (exit 130, nothing
# written); bad per-app options are refused. The runtime's several-stream
# core runs under ThreadSanitizer in runtime-tsan-streams (toy app: the
# generated program links libgomp, which TSan does not instrument).
# Without a Vulkan device: SKIP (a failure under BTC_REQUIRE_VULKAN=1).
set -euo pipefail
btc=$1 src=$2 work=$3
. "$src/test/common/skip.sh"
rm -rf "$work" && mkdir -p "$work"
btc_test_need_vulkan gen-workload "cannot run the Vulkan chunks"
gpu=$(btc_test_host_pu vulkan)
cpu=$(btc_test_host_pu cpu)
octree=$src/apps/octree.yaml alexnet=$src/apps/alexnet-dense.yaml

# Per-app options are refused with a message naming what is wrong.
expect_error() {
  local want=$1
  shift
  if "$btc" gen "$@" --device host -o "$work/bad" > "$work/bad.log" 2>&1; then
    echo "FAIL: btc gen $* succeeded"; exit 1
  fi
  grep -q "$want" "$work/bad.log" || { echo "FAIL: no '$want' in:"; cat "$work/bad.log"; exit 1; }
}
expect_error "several apps need APP=SPEC" "$octree" "$alexnet" --chunks "$cpu:0-6"
expect_error "has no schedule: give it one with --chunks alexnet_dense=SPEC" \
  "$octree" "$alexnet" --chunks "octree=$cpu:0-6"
expect_error "the apps of a workload need different names" "$octree" "$octree" \
  --chunks "octree=$cpu:0-6"

dir=$work/w
"$btc" gen "$octree" "$alexnet" --device host --gpu vulkan \
  --chunks "octree=$cpu:0-2,$gpu:3-6" --chunks "alexnet_dense=$cpu:0-3,$gpu:4-8" \
  -o "$dir" --build > "$work/gen.log" 2>&1 || { cat "$work/gen.log"; exit 1; }
prog=$(ls "$dir"/build/*-workload)
"$prog" --list | tee "$work/list.txt"
grep -q "^  0 octree .*cpu:0-2 vulkan:3-6" "$work/list.txt"
grep -q "^  1 alexnet_dense .*cpu:0-3 vulkan:4-8" "$work/list.txt"

# Both streams at once, every task of each checked.
BTRT_NO_PIN=1 "$prog" --tasks 8 --quiet --report "$work/r.json" --trace "$work/t.json" \
  > "$work/run.txt" 2>&1 || { cat "$work/run.txt"; exit 1; }
cat "$work/run.txt"
# measured REPORT TASKS: each stream of REPORT measured TASKS minus the
# warm-up asked, its own warm-up at least its pool (issue 25: every
# TaskObject's first use before the steady-state window), the extra
# warm-up tasks streamed besides; prints "STREAM RUN WARMUP" per stream.
measured() {
  python3 - "$@" << 'PY'
import json, sys
r = json.load(open(sys.argv[1]))
asked, want = r["warmup"], int(sys.argv[2])
for s in r["streams"]:
    w = s["warmup"]
    assert w == max(asked, s["pool"]), f"stream {s['stream']}: warm-up {w}, pool {s['pool']}"
    assert s["measured_tasks"] == want - asked, (s["measured_tasks"], want, asked)
    assert s["tasks"] == want + w - asked, (s["tasks"], want, w, asked)
    print(s["stream"], s["tasks"], w)
PY
}
# verified FILE REPORT TASKS STREAM...: the summary line of each stream
# with the run's tasks and warm-up
verified() {
  local file=$1 report=$2 tasks=$3 i n w
  shift 3
  measured "$report" "$tasks" > "$work/measured.txt"
  for s in "$@"; do
    read -r i n w <<< "$(grep "^${s%% *} " "$work/measured.txt")"
    grep -q "^stream $s: verified $n tasks ($w warm-up" "$file" ||
      { echo "FAIL: stream $s: no 'verified $n tasks ($w warm-up' in $file"; cat "$file"; exit 1; }
  done
}
# was "verified 8 tasks": 8 + (the warm-up - the 4 asked) now (issue 25)
verified "$work/run.txt" "$work/r.json" 8 "0 (octree)" "1 (alexnet_dense)"
python3 - "$work/r.json" "$work/t.json" << 'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["verified"] is True and len(r["streams"]) == 2, r
for s, app in zip(r["streams"], ["octree", "alexnet_dense"]):
    assert s["app"] == app and s["verified"] is True and s["tasks"] == 8 + s["warmup"] - r["warmup"], s
    assert s["tasks_per_s"] > 0 and s["latency_ms"]["median"] > 0, s
    assert [c["pu"] for c in s["chunks"]] and all(0 <= c["share"] <= 1.0001 for c in s["chunks"]), s
t = json.load(open(sys.argv[2]))
names = {e["pid"]: e["args"]["name"] for e in t["traceEvents"] if e["name"] == "process_name"}
assert names == {1: "stream 0 octree", 2: "stream 1 alexnet_dense"}, names
for pid in (1, 2):
    checks = [e for e in t["traceEvents"] if e["pid"] == pid and e["name"] == "check"]
    assert len(checks) == r["streams"][pid - 1]["tasks"], (pid, len(checks))
PY

# Another input for one stream, one stream alone, tasks per stream, a paced stream.
# (Each was "verified TASKS tasks" before issue 25.)
BTRT_NO_PIN=1 "$prog" --tasks 6 --quiet --streams octree --report "$work/one.json" \
  --input "octree=$src/data/pointclouds" > "$work/one.txt" 2>&1 || { cat "$work/one.txt"; exit 1; }
verified "$work/one.txt" "$work/one.json" 6 "0 (octree)"
if grep -q "^stream 1" "$work/one.txt"; then echo "FAIL: --streams octree ran alexnet_dense"; exit 1; fi
BTRT_NO_PIN=1 "$prog" --tasks octree=4 --tasks 1=6 --warmup 2 --quiet --report "$work/each.json" \
  > "$work/each.txt" 2>&1 || { cat "$work/each.txt"; exit 1; }
python3 - "$work/each.json" << 'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for s, tasks in zip(r["streams"], [4, 6]): # a pool of each stream's own
    assert s["pool"] <= tasks and s["warmup"] == max(2, s["pool"]), s
    assert s["measured_tasks"] == tasks - 2 and s["tasks"] == tasks + s["warmup"] - 2, s
PY
# a warm-up per stream (--warmup S=N over --warmup N): each one's own
BTRT_NO_PIN=1 "$prog" --tasks 6 --warmup 2 --warmup alexnet_dense=4 --quiet \
  --report "$work/warm.json" > "$work/warm.txt" 2>&1 || { cat "$work/warm.txt"; exit 1; }
python3 - "$work/warm.json" << 'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for s, asked in zip(r["streams"], [2, 4]):
    assert s["warmup_requested"] == asked and s["warmup"] == max(asked, s["pool"]), s
    assert s["measured_tasks"] == 6 - asked and s["tasks"] == 6 + s["warmup"] - asked, s
PY
if "$prog" --warmup 1=-1 > /dev/null 2> "$work/bad.txt"; then echo "FAIL: --warmup 1=-1 ran"; exit 1; fi
grep -q -- "--warmup" "$work/bad.txt" || { cat "$work/bad.txt"; exit 1; }
grep -q "^stream 0 (octree): verified" "$work/each.txt"
grep -q "^stream 1 (alexnet_dense): verified" "$work/each.txt"
BTRT_NO_PIN=1 "$prog" --tasks 6 --quiet --rate alexnet_dense=200 --report "$work/paced.json" \
  > "$work/paced.txt" 2>&1 || { cat "$work/paced.txt"; exit 1; }
verified "$work/paced.txt" "$work/paced.json" 6 "1 (alexnet_dense)"

# SIGINT stops every stream: exit 130, no report or trace.
rm -f "$work"/s.json* "$work"/st.json*
BTRT_NO_PIN=1 env --default-signal=INT "$prog" --tasks 1000000000 --report "$work/s.json" \
  --trace "$work/st.json" > "$work/int.out" 2> "$work/int.err" &
pid=$!
for ((i = 0; i < 600; i++)); do
  [ "$(grep -c "tasks, pool" "$work/int.out")" = 2 ] && break
  sleep 0.05
done
sleep 0.5
kill -INT "$pid"
rc=0
for ((i = 0; i < 400; i++)); do
  kill -0 "$pid" 2> /dev/null || break
  sleep 0.05
done
if kill -0 "$pid" 2> /dev/null; then echo "FAIL: still running 20 s after SIGINT"; kill -KILL "$pid"; exit 1; fi
wait "$pid" || rc=$?
[ "$rc" = 130 ] || { echo "FAIL: SIGINT: exit status $rc, expected 130"; cat "$work/int.err"; exit 1; }
grep -q "SIGINT: stopped every stream" "$work/int.err"
if ls "$work"/s.json* "$work"/st.json* 2> /dev/null; then echo "FAIL: SIGINT left a report or trace"; exit 1; fi
echo "gen-workload: OK"
