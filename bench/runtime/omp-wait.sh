#!/usr/bin/env bash
# The OpenMP wait policy, A/B (docs/runtime.md, "OpenMP"): one program of
# an app's CPU-only schedule, run in interleaved rounds with its OpenMP
# teams waiting passively between parallel regions (OMP_WAIT_POLICY=passive,
# what btrt asks for where PUs share cores) and spinning (GOMP_SPINCOUNT=
# 300000, libgomp's own default, what btrt leaves where every thread has
# cores of its own: btc_gen_omp_spin). Every run verifies every task (an
# unverified run fails the bench). Prints each policy's median ms/task with
# its min..max, and spin / passive: the median of the per-round ratios
# with their min..max.
#
#   bench/runtime/omp-wait.sh BTC [APP [ROUNDS]]
#
# BTC: a built btc; APP: alexnet-dense (default) or octree; ROUNDS: 7.
# E.g. bench/runtime/omp-wait.sh build/btc/btc alexnet-dense 7
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: bench/runtime/omp-wait.sh BTC [APP [ROUNDS]]" >&2; exit 2; }
btc=$(realpath "$1") app=${2:-alexnet-dense} rounds=${3:-7}
root=$(cd "$(dirname "$0")/../.." && pwd)
case $app in
  octree) prog=octree-pipeline; chunks=cpu:0-6 ;;
  alexnet-dense) prog=alexnet_dense-pipeline; chunks=cpu:0-8 ;;
  *) echo "omp-wait: APP is alexnet-dense or octree" >&2; exit 2 ;;
esac
work=$(mktemp -d /tmp/omp-wait.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$btc" gen "$root/apps/$app.yaml" --device host --chunks "$chunks" -o "$work/p" \
  > "$work/gen.log" 2>&1 ||
  { cat "$work/gen.log" >&2; exit 1; }
(cd "$work/p" && meson setup build > "$work/setup.log" 2>&1 &&
  ninja -C build > "$work/build.log" 2>&1) ||
  { cat "$work/setup.log" "$work/build.log" >&2; exit 1; }
echo "omp-wait: $app, the cpu schedule (schedule 0) on $(nproc) cores, $rounds rounds of 200 tasks"
run() { # POLICY -> "POLICY ms/task" on stdout
  local rep=$work/r.json
  local env=(OMP_WAIT_POLICY=passive)
  [ "$1" = spin ] && env=(GOMP_SPINCOUNT=300000)
  env "${env[@]}" "$work/p/build/$prog" --schedule 0 --tasks 200 --quiet --report "$rep" \
    > "$work/run.log" 2>&1 || { cat "$work/run.log" >&2; return 1; }
  python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
assert r["verified"], "not verified"
assert r["omp_wait"] == "environment", r["omp_wait"]
print(sys.argv[2], r["measured_ms_per_task"])' "$rep" "$1"
}
: > "$work/all"
for ((k = 1; k <= rounds; k++)); do
  order="passive spin"; [ $((k % 2)) = 0 ] && order="spin passive"
  for p in $order; do run "$p" >> "$work/all"; done
done
python3 - "$work/all" <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1])]
d = {"passive": [], "spin": []}
for p, ms in rows:
    d[p].append(float(ms))
print("| OpenMP wait | ms/task median | min..max | runs |")
print("|---|---|---|---|")
for p in ("passive", "spin"):
    x = d[p]
    print("| %s | %.3f | %.3f..%.3f | %d |" % (p, st.median(x), min(x), max(x), len(x)))
r = [s / q for q, s in zip(d["passive"], d["spin"])]
print("spin / passive: %.3f (per round: %.3f..%.3f over %d rounds)"
      % (st.median(r), min(r), max(r), len(r)))
PY
