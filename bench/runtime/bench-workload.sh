#!/usr/bin/env bash
# Do two streams that time-share one CPU PU get their planned shares?
# (issue 27; docs/runtime.md, "Several streams"). Generates a workload of
# octree (Kinect frames) and alexnet-dense (CIFAR-10), both apps whole on
# the host's CPU PU (their chunks pinned to the same cores), builds it,
# then for R rounds measures: each stream alone (tasks/s), both together
# unpaced (what the OS's time-sharing gives), and both together paced at
# the planned rates r_s = SHARE_s x its solo rate (default 0.5 each: the
# plan Σ_s r_s · t_s = 1 on the CPU). Together, a stream's rate counts the
# checks inside the window where both streams run, read from the trace
# (one time line for both: btrt_runs_write_trace). Prints per round and
# the medians: each stream's rate and its share (rate over solo rate).
# Every run verifies every task; nothing is asserted about the figures.
#
#   bench/runtime/bench-workload.sh BTC SRC WORK [--rounds R] [--seconds S]
#                                   [--share A,B]
set -euo pipefail
btc=$1 src=$2 work=$3
shift 3
rounds=3 seconds=3 share=0.5,0.5
while (($#)); do
  case $1 in
    --rounds) rounds=$2 ;;
    --seconds) seconds=$2 ;;
    --share) share=$2 ;;
    *) echo "bench-workload: unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
rm -rf "$work" && mkdir -p "$work"
cpu=$("$btc" device host | awk '/name:/ {n=$3} /kind: cpu/ {print n; exit}')
"$btc" gen "$src/apps/octree.yaml" "$src/apps/alexnet-dense.yaml" --device host \
  --chunks "octree=$cpu:0-6" --chunks "alexnet_dense=$cpu:0-8" -o "$work/w" --build \
  > "$work/gen.log" 2>&1 || { cat "$work/gen.log"; exit 1; }
prog=$(ls "$work"/w/build/*-workload)
# rate FILE: "tasks/s" of the one stream in a report
rate() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["streams"][0]["tasks_per_s"])' "$1"; }
# overlap TRACE: both streams' tasks/s inside the window where both run
overlap() {
  python3 - "$1" << 'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
checks = {1: [], 2: []}
for e in ev:
    if e.get("name") == "check" and e.get("ph") == "X":
        checks[e["pid"]].append(e["ts"] + e["dur"])
lo = max(min(v) for v in checks.values())
hi = min(max(v) for v in checks.values())
out = []
for pid in (1, 2):
    n = sum(1 for t in checks[pid] if lo < t <= hi)
    out.append("%.2f" % (n / ((hi - lo) / 1e6)) if hi > lo else "0")
print(" ".join(out))
PY
}
IFS=, read -r share0 share1 <<< "$share"
printf "round  solo_octree solo_alexnet | unpaced_octree unpaced_alexnet | paced_octree paced_alexnet (planned)\n"
for ((r = 0; r < rounds; r++)); do
  "$prog" --streams octree --tasks 40 --quiet --report "$work/s0.json" > /dev/null
  "$prog" --streams alexnet_dense --tasks 300 --quiet --report "$work/s1.json" > /dev/null
  s0=$(rate "$work/s0.json") s1=$(rate "$work/s1.json")
  # tasks for about `seconds` alone: both streams run about as long together
  t0=$(python3 -c "print(max(16, int($s0 * $seconds)))")
  t1=$(python3 -c "print(max(16, int($s1 * $seconds)))")
  "$prog" --quiet --tasks "octree=$t0" --tasks "alexnet_dense=$t1" --trace "$work/u.json" > /dev/null
  u=$(overlap "$work/u.json")
  p0=$(python3 -c "print($s0 * $share0)") p1=$(python3 -c "print($s1 * $share1)")
  "$prog" --quiet --tasks "octree=$t0" --tasks "alexnet_dense=$t1" \
    --rate "octree=$p0" --rate "alexnet_dense=$p1" \
    --trace "$work/p.json" > /dev/null
  p=$(overlap "$work/p.json")
  printf "%d  %.1f %.1f | %s | %s (%.1f %.1f)\n" "$r" "$s0" "$s1" "$u" "$p" "$p0" "$p1"
done
