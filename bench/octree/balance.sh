#!/usr/bin/env bash
# The OpenMP kernels' load balance, A/B (docs/octree.md, "Load balance"):
# the CPU-only schedule of an app, its program built twice from one
# generated project, once with this tree's kernels (new) and once with
# the kernels of an older commit (old), each run with the CPU PU quiet and
# with one busy thread pinned to one of its cores (the program's own
# --hog-cpu), in interleaved rounds. Every run verifies every task (the
# program's report says so; an unverified run fails the bench). Prints
# each variant's median ms/task with its min..max, its slowdown under the
# hog (hog / quiet, medians), and new / old per condition.
#
#   bench/octree/balance.sh BTC OLD_REV [APP [ROUNDS [HOG_CORE]]]
#
# BTC: a built btc; OLD_REV: the commit whose kernels are "old"; APP:
# octree (default) or alexnet-dense; ROUNDS: 5; HOG_CORE: the PU's last
# core. E.g. bench/octree/balance.sh build/btc/btc 085d65e octree 7
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: bench/octree/balance.sh BTC OLD_REV [APP [ROUNDS [HOG_CORE]]]" >&2; exit 2; }
btc=$(realpath "$1") old=$2 app=${3:-octree} rounds=${4:-5}
root=$(cd "$(dirname "$0")/../.." && pwd)
case $app in
  octree) kdir=kernels/octree; prog=octree-pipeline; chunks=cpu:0-6
          files="cpu_common.h morton.c sort.c unique.c radix_tree.c edge_count.c scan_cpu.c build.c" ;;
  alexnet-dense) kdir=kernels/alexnet; prog=alexnet_dense-pipeline; chunks=cpu:0-8; files="cpu_ops.c" ;;
  *) echo "balance: APP is octree or alexnet-dense" >&2; exit 2 ;;
esac
git -C "$root" rev-parse --verify -q "$old^{commit}" > /dev/null ||
  { echo "balance: no commit $old" >&2; exit 2; }
work=$(mktemp -d /tmp/balance.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$btc" gen "$root/apps/$app.yaml" --device host --chunks "$chunks" -o "$work/new" > "$work/gen.log" 2>&1 ||
  { cat "$work/gen.log" >&2; exit 1; }
cp -r "$work/new" "$work/old"
for f in $files; do
  [ -f "$work/old/app/$f" ] || { echo "balance: the project has no app/$f" >&2; exit 1; }
  git -C "$root" show "$old:$kdir/$f" > "$work/old/app/$f"
done
for v in new old; do
  (cd "$work/$v" && meson setup build > "$work/$v.setup.log" 2>&1 && ninja -C build > "$work/$v.build.log" 2>&1) ||
    { cat "$work/$v.setup.log" "$work/$v.build.log" >&2; exit 1; }
done
ls "$work/new/build/$prog" > /dev/null
ncores=$(nproc)
hog=${5:-$((ncores - 1))}
echo "balance: $app, the cpu schedule (schedule 0) on $ncores cores, $rounds rounds; hog: one busy thread on core $hog; old kernels: $old"
run() { # VARIANT HOG(0|1) -> ms/task on stdout
  local v=$1 h=$2 rep=$work/r.json
  local args=(--schedule 0 --tasks 64 --quiet --report "$rep")
  [ "$h" = 1 ] && args+=(--hog-cpu "$hog")
  "$work/$v/build/$prog" "${args[@]}" > "$work/run.log" 2>&1 || { cat "$work/run.log" >&2; return 1; }
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["verified"], "not verified"; print(r["measured_ms_per_task"], *(s["steady_mean_ms"] for s in sorted(r["stages"], key=lambda s: s["stage"])))' "$rep"
}
: > "$work/all"
for ((k = 1; k <= rounds; k++)); do
  order="new old"; [ $((k % 2)) = 0 ] && order="old new"
  for h in 0 1; do
    for v in $order; do
      ms=$(run "$v" "$h")
      echo "$v $h $ms" >> "$work/all"
    done
  done
  echo "balance: round $k done"
done
python3 - "$work/all" <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1])]
d, stages = {}, {}
for v, h, ms, *st_ms in rows:
    d.setdefault((v, h), []).append(float(ms))
    stages.setdefault((v, h), []).append([float(x) for x in st_ms])
med = {k: st.median(x) for k, x in d.items()}
print("| kernels | cpu | ms/task median | min..max | runs |")
print("|---|---|---|---|---|")
for v in ("old", "new"):
    for h in ("0", "1"):
        x = d[(v, h)]
        print("| %s | %s | %.3f | %.3f..%.3f | %d |" % (v, "one core hogged" if h == "1" else "quiet",
              med[(v, h)], min(x), max(x), len(x)))
ns = len(stages[("old", "0")][0])
print("\nper stage, ms/task (the median over the runs of each run's steady mean):")
print("| kernels | cpu | " + " | ".join("stage %d" % i for i in range(ns)) + " |")
print("|---|---|" + "---|" * ns)
for v in ("old", "new"):
    for h in ("0", "1"):
        m = [st.median(r[i] for r in stages[(v, h)]) for i in range(ns)]
        print("| %s | %s | " % (v, "one core hogged" if h == "1" else "quiet") +
              " | ".join("%.3f" % x for x in m) + " |")
print()
for v in ("old", "new"):
    print("%s: hog / quiet = %.2f" % (v, med[(v, "1")] / med[(v, "0")]))
for h, name in (("0", "quiet"), ("1", "one core hogged")):
    print("new / old, %s: %.3f" % (name, med[("new", h)] / med[("old", h)]))
PY
