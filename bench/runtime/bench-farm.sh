#!/usr/bin/env bash
# A whole-app farm against the best single PU (issue 16), measured here:
# generates APP for this machine with the farm {CPU, GPU} over every stage
# beside the homogeneous baselines (every stage on the CPU PU, every stage
# on the GPU), builds it, then runs the three interleaved for R rounds (the
# order rotates every round) and prints, per schedule, the median steady
# ms/task with its range, the best baseline by median, the farm's time
# over the best baseline's per round (paired) and the ideal farm, 1 /
# (1 / cpu + 1 / gpu) from the baselines' medians. Every run verifies every
# task; nothing is asserted about the figures.
#
#   bench/runtime/bench-farm.sh BTC SRC WORK [--app APP.yaml] [--gpu vulkan|cuda]
#                               [--rounds R] [--tasks N] [--warmup W]
#   e.g. bench/runtime/bench-farm.sh build/btc/btc . /tmp/bench-farm --rounds 7
set -euo pipefail
btc=$1 src=$2 work=$3
shift 3
app=apps/alexnet-dense.yaml gpu_api=vulkan rounds=7 tasks=200 warmup=20
while (($#)); do
  case $1 in
    --app) app=$2 ;;
    --gpu) gpu_api=$2 ;;
    --rounds) rounds=$2 ;;
    --tasks) tasks=$2 ;;
    --warmup) warmup=$2 ;;
    *) echo "bench-farm: unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
rm -rf "$work" && mkdir -p "$work"
host=$("$btc" device host)
gpu=$(awk -v k="kind: $gpu_api" '/name:/ {n=$3} $0 ~ k {print n; exit}' <<< "$host")
cpu=$(awk '/name:/ {n=$3} /kind: cpu/ {print n; exit}' <<< "$host")
[ -n "$gpu" ] || { echo "bench-farm: no $gpu_api PU on this machine" >&2; exit 77; }
n=$("$btc" check "$src/$app" | sed -n 's/.*: \([0-9]*\) stages.*/\1/p')
"$btc" gen "$src/$app" --device host --gpu "$gpu_api" --chunks "{$cpu,$gpu}:0-$((n - 1))" \
  -o "$work/project" --build > "$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
prog=$(ls "$work/project"/build/*-pipeline)
"$prog" --list
# schedule index by label
idx() { "$prog" --list | awk -v l="$1" '$4 == l {print $1}'; }
farm=$(idx "{$cpu,$gpu}:0-$((n - 1))") cpu_s=$(idx "$cpu:0-$((n - 1))") gpu_s=$(idx "$gpu:0-$((n - 1))")
names=(farm "$cpu" "$gpu")
scheds=("$farm" "$cpu_s" "$gpu_s")
declare -A ms
for ((r = 0; r < rounds; r++)); do
  for ((j = 0; j < 3; j++)); do
    k=$(((j + r) % 3)) # rotate the order: no schedule always runs first
    out=$("$prog" --schedule "${scheds[$k]}" --tasks "$tasks" --warmup "$warmup" --quiet) ||
      { echo "$out"; exit 1; }
    grep -q "^verified $tasks tasks" <<< "$out" || { echo "$out"; exit 1; }
    ms[$k,$r]=$(sed -n 's/.*; \([0-9.]*\) ms\/task in steady state.*/\1/p' <<< "$out")
  done
done
{
  echo "$rounds $tasks $warmup $app $gpu_api"
  for ((k = 0; k < 3; k++)); do
    line=${names[$k]}
    for ((r = 0; r < rounds; r++)); do line+=" ${ms[$k,$r]}"; done
    echo "$line"
  done
} > "$work/ms.txt"
python3 - "$work/ms.txt" <<'EOF'
import statistics, sys
lines = open(sys.argv[1]).read().split("\n")
head = lines[0].split()
rounds, tasks, warmup, app, api = int(head[0]), head[1], head[2], head[3], head[4]
rows = [l.split() for l in lines[1:] if l.strip()]
v = {r[0]: [float(x) for x in r[1:]] for r in rows}
names = [r[0] for r in rows]
med = {nm: statistics.median(v[nm]) for nm in names}
print(f"\n== whole-app farm vs the best single PU: {app}, GPU API {api}, {rounds} interleaved rounds,")
print(f"   {tasks} tasks per run ({warmup} warm-up), steady ms/task, every task verified")
print("%-22s %9s %9s %9s" % ("schedule", "median", "min", "max"))
for nm in names:
    label = "{%s,%s} (farm)" % (names[1], names[2]) if nm == "farm" else nm + " alone"
    print("%-22s %9.4f %9.4f %9.4f" % (label, med[nm], min(v[nm]), max(v[nm])))
best = min(names[1:], key=lambda nm: med[nm])
ratio = [f / b for f, b in zip(v["farm"], v[best])]
faster = sum(1 for x in ratio if x < 1)
ideal = 1 / (1 / med[names[1]] + 1 / med[names[2]])
print("best single PU: %s (%.4f ms)" % (best, med[best]))
print("farm / %s per round: median %.3f [%.3f..%.3f], farm faster in %d of %d rounds; speedup %.3fx"
      % (best, statistics.median(ratio), min(ratio), max(ratio), faster, rounds,
         1 / statistics.median(ratio)))
print("ideal farm 1/(1/%s + 1/%s) = %.4f ms: %.3fx over %s; the measured farm reaches %.2f of it"
      % (names[1], names[2], ideal, med[best] / ideal, best, ideal / med["farm"]))
EOF
