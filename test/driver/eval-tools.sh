#!/usr/bin/env bash
# The evaluation's tools on two leases' real reports (data/eval/README.md):
# `btc report` (the CPU-only and GPU-only columns, the interval), `btc
# report --compare` and scripts/eval-compare (the reproducibility goal),
# `btc report --svg` (the pooled figures against an independent count),
# scripts/eval (--list, tables, reference, skipping done steps),
# scripts/trace-windows (a made-up trace).
# Usage: eval-tools.sh BTC SOURCE_ROOT WORK_DIR
set -uo pipefail
btc=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
cd "$src" || exit 1
. test/driver/lib.sh
data=test/driver/data/eval
export BTC=$btc

fail() {
  echo "FAIL: $1"
  [ -z "${2:-}" ] || sed 's/^/    /' "$2" | head -40
  exit 1
}

# 1. btc report: lease F's octree CUDA run (CPU-only = the cpu baseline,
# GPU-only = the cuda one, the chosen schedule's median and interval).
"$btc" report $data/lease-f/*/*.json > "$work/1.md" || fail "btc report exit $?" "$work/1.md"
row=$(grep '^| octree-cuda-g1 |' "$work/1.md")
want=$(json $data/lease-f/octree-cuda-g1/octree-cuda-g1.json '"| %.3f | %.3f | cuda:0-4 cpu:5-6 | %.3f | [%.3f, %.3f] |" % (
  min(b["measured_ms_per_task"] for b in r["baselines"] if b["pu"] == "cpu"),
  min(b["measured_ms_per_task"] for b in r["baselines"] if b["pu"] == "cuda"),
  r["measured_ms_per_task"],
  [c for c in r["candidates"] if c["index"] == r["schedule"]["index"]][0]["measured_ci_low_ms"],
  [c for c in r["candidates"] if c["index"] == r["schedule"]["index"]][0]["measured_ci_high_ms"])')
grep -qF -- "$want" <<<"$row" || fail "btc report row lacks '$want'" "$work/1.md"
[ "$(grep -c '^| octree-cuda-g1 | octree | host | ' "$work/1.md")" = 6 ] ||
  fail "fit table: not 6 models for octree-cuda-g1" "$work/1.md"
echo "ok: btc report columns"

# 2. --compare: octree CUDA chose two schedules 10.8 % apart (each lease
# measured the other's choice), alexnet-dense Vulkan the same one.
E=$data/lease-e F=$data/lease-f
"$btc" report --compare $E/octree-cuda-g1/octree-cuda-g1.json $F/octree-cuda-g1/octree-cuda-g1.json \
  $E/alexnet-dense-vulkan-g1/alexnet-dense-vulkan-g1.json \
  $F/alexnet-dense-vulkan-g1/alexnet-dense-vulkan-g1.json > "$work/2.md" ||
  fail "btc report --compare exit $?" "$work/2.md"
grep -qE '^\| octree-cuda-g1 \| cuda:0-3 cpu:4-6 \| 1\.064 .* \| cuda:0-4 cpu:5-6 \| 1\.179 .* \| 10\.8 \| 1\.244 \| 1\.029 \| .* \| 8\.5 \| no \| yes \| no \| 17\.0 \| no \|$' "$work/2.md" ||
  fail "--compare: the octree row" "$work/2.md"
grep -qE '^\| alexnet-dense-vulkan-g1 \| .* \| yes \(same schedule\) \| yes \| yes \| 0\.0 \| yes \|$' "$work/2.md" ||
  fail "--compare: the alexnet-dense row" "$work/2.md"
grep -q '^1 of 2 pairs reproduced' "$work/2.md" || fail "--compare: the count" "$work/2.md"
grep -q '^1 of 2 judged on one lease' "$work/2.md" || fail "--compare: the one-lease count" "$work/2.md"
# The noise floor: lease E's medians as a prediction of lease F's, over the
# schedules both measured, computed here independently.
want=$(python3 - "$E/octree-cuda-g1/octree-cuda-g1.json" "$F/octree-cuda-g1/octree-cuda-g1.json" <<'PY'
import json, math, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
mb = {c["label"]: c["measured_ms_per_task"] for c in b["candidates"] if c["status"] == "verified"}
pairs = [(c["measured_ms_per_task"], mb[c["label"]]) for c in a["candidates"]
         if c["status"] == "verified" and c["label"] in mb]
x, y = [p[0] for p in pairs], [p[1] for p in pairs]
def pearson(u, v):
    mu, mv = sum(u) / len(u), sum(v) / len(v)
    return sum((p - mu) * (q - mv) for p, q in zip(u, v)) / math.sqrt(
        sum((p - mu) ** 2 for p in u) * sum((q - mv) ** 2 for q in v))
def ranks(v):
    return [sum(w < e for w in v) + (sum(w == e for w in v) - 1) / 2 for e in v]
e = sorted(abs(q / p - 1) for p, q in pairs)
n = len(e)
med = e[n // 2] if n % 2 else (e[n // 2 - 1] + e[n // 2]) / 2
best = y[x.index(min(x))] <= 1.05 * min(y)
print("| octree-cuda-g1 | %d | %.3f | %.3f | %.1f | %.1f | %s |" % (
    n, pearson(x, y), pearson(ranks(x), ranks(y)), 100 * med, 100 * e[-1], "yes" if best else "no"))
PY
)
grep -qF -- "$want" "$work/2.md" || fail "--compare: the noise-floor row, want '$want'" "$work/2.md"
grep -qE "^[0-9] of 2 pairs' measurements meet the fit goals against each other" "$work/2.md" ||
  fail "--compare: the noise-floor count" "$work/2.md"
# The machines row: both leases' best CPU-only and GPU-only baselines,
# computed here from the reports' baselines.
want=$(python3 - $E/octree-cuda-g1/octree-cuda-g1.json $F/octree-cuda-g1/octree-cuda-g1.json <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
def best(r, pu):
    return min(x["measured_ms_per_task"] for x in r["baselines"] if x["pu"] == pu)
def apart(u, v):
    return abs(u - v) / min(u, v)
ca, cb, ga, gb = best(a, "cpu"), best(b, "cpu"), best(a, "cuda"), best(b, "cuda")
alike = apart(ca, cb) <= 0.05 and apart(ga, gb) <= 0.05
print("| octree-cuda-g1 | %.3f | %.3f | %.1f | %.3f | %.3f | %.1f | %s |" % (
    ca, cb, 100 * apart(ca, cb), ga, gb, 100 * apart(ga, gb), "yes" if alike else "no"))
PY
)
grep -qF -- "$want" "$work/2.md" || fail "--compare: the machines row, want '$want'" "$work/2.md"
grep -qE '^[0-2] of 2 pairs ran on machines alike; [0-2] of those [0-2] reproduced\.$' "$work/2.md" ||
  fail "--compare: the machines count" "$work/2.md"
"$btc" report --compare $E/octree-cuda-g1/octree-cuda-g1.json > "$work/2b.log" 2>&1 &&
  fail "--compare with one report exits 0" "$work/2b.log"
grep -q "no partner" "$work/2b.log" || fail "--compare with one report: no message" "$work/2b.log"
"$btc" report --compare --csv "$work/x.csv" $E/octree-cuda-g1/octree-cuda-g1.json \
  $F/octree-cuda-g1/octree-cuda-g1.json > "$work/2c.log" 2>&1
[ $? = 2 ] || fail "--compare --csv is not a usage error" "$work/2c.log"
echo "ok: btc report --compare"

# 3. scripts/eval-compare pairs the runs both folders hold.
mkdir -p "$work/b"
cp -r $F/octree-cuda-g1 "$work/b/"
scripts/eval-compare $E "$work/b" > "$work/3.md" || fail "eval-compare exit $?" "$work/3.md"
grep -q '^| octree-cuda-g1 | cuda:0-3 cpu:4-6 |' "$work/3.md" || fail "eval-compare: no octree row" "$work/3.md"
grep -q '^Only in A (not compared): alexnet-dense-vulkan-g1' "$work/3.md" ||
  fail "eval-compare: the run only A holds" "$work/3.md"
grep -q '^0 of 1 pairs reproduced' "$work/3.md" || fail "eval-compare: the count" "$work/3.md"
echo "ok: scripts/eval-compare"

# 4. --svg: one marker per verified schedule with a calibrated LOO
# prediction, and the pooled median and max error, counted here apart.
"$btc" report $E/*/*.json $F/*/*.json --svg "$work/all.svg" --speedup-svg "$work/sp.svg" > /dev/null ||
  fail "btc report --svg exit $?"
python3 - "$work/all.svg" "$work/sp.svg" $E/*/*.json $F/*/*.json <<'EOF' || exit 1
import json, statistics, sys, xml.dom.minidom
svg, sp, reports = sys.argv[1], sys.argv[2], sys.argv[3:]
xml.dom.minidom.parse(sp)
doc = xml.dom.minidom.parse(svg)
err = []
for p in reports:
    r = json.load(open(p))
    m = r["fit"]["mode"]
    for c in r["candidates"]:
        x = (c.get("calibrated_loo_ms") or {}).get(m)
        y = c.get("measured_ms_per_task")
        if c["status"] == "verified" and x and y:
            err.append(abs(y / x - 1))
want = "%d schedules of %d runs: |measured/predicted - 1| median %.1f %%, max %.1f %%" % (
    len(err), len(reports), 100 * statistics.median(err), 100 * max(err))
texts = [t.firstChild.data for t in doc.getElementsByTagName("text") if t.firstChild]
if want not in texts:
    sys.exit("FAIL: --svg title: want '%s', have %s" % (want, texts[:3]))
marks = sum(len(g.getElementsByTagName(k)) for g in doc.getElementsByTagName("g")
            for k in ("circle", "rect", "path"))
if marks != len(err):
    sys.exit("FAIL: --svg: %d markers for %d schedules" % (marks, len(err)))
EOF
echo "ok: btc report --svg"

# 5. scripts/eval: --list, tables and reference over lease F's folder.
out=$work/out
cp -r $F "$out"
opts=(--apps octree,alexnet-dense --gpus cuda,vulkan --groups 1)
scripts/eval "$out" "${opts[@]}" --list > "$work/5.list" || fail "eval --list exit $?" "$work/5.list"
grep -qE '^octree-cuda-g1 +done' "$work/5.list" && grep -qE '^octree-vulkan-g1 +todo' "$work/5.list" &&
  grep -qE '^tables +todo' "$work/5.list" || fail "eval --list" "$work/5.list"
scripts/eval "$out" "${opts[@]}" --step nosuch > "$work/5.bad" 2>&1
[ $? = 2 ] || fail "eval: an unknown step is not a usage error" "$work/5.bad"
scripts/eval "$out" "${opts[@]}" --step reference,tables > "$work/5.log" 2>&1 ||
  fail "eval reference,tables exit $?" "$work/5.log"
r=$out/results.md
grep -q '^| octree-cuda-g1 | octree | cuda | ' "$r" && grep -q '^| alexnet-dense-vulkan-g1 | ' "$r" ||
  fail "results.md: the runs" "$r"
grep -q '^| octree-cuda-g1 | octree | host | calibrated isolated (LOO) \* | 12 |' "$r" ||
  fail "results.md: the fit table" "$r"
grep -q '^Steps not run (or not finished): octree-vulkan-g1 alexnet-dense-cuda-g1\.$' "$r" ||
  fail "results.md: the steps not run" "$r"
# The reference tables, as btc schedule solves them (docs/scheduler.md).
grep -qF '| pixel7a | octree | interference | big 10.7486 | 2.413 (big:0-1 gpu:2-3 little:4-5 medium:6) | 2.413 (big:0-1 gpu:2-3 little:4-5 medium:6) | 2.321 ({little,medium}:0-2 gpu:3-5 big:6) | 1.870 |' "$r" ||
  fail "results.md: the reference row of pixel7a octree" "$r"
[ "$(grep -c '^| \(pixel7a\|jetson-orin-nano\) |' "$r")" = 12 ] || fail "results.md: not 12 reference rows" "$r"
[ -s "$out/fit-all.svg" ] && [ -s "$out/speedup.svg" ] && [ -s "$out/fit.csv" ] || fail "tables: files missing"
scripts/eval "$out" "${opts[@]}" --step 'octree-cuda-g1,tables' > "$work/5b.log" 2>&1 ||
  fail "eval done steps exit $?" "$work/5b.log"
[ "$(grep -c 'done, skipped' "$work/5b.log")" = 2 ] || fail "eval: done steps not skipped" "$work/5b.log"
echo "ok: scripts/eval --list, reference, tables"

# 6. scripts/eval --exhaustive 1: the g1 jobs (and only they) measure the
# paper's space (btc tune --exhaustive), the others race the regret round
# against their best measured (--regret-round), as machine.txt records; a
# stand-in btc that records its words and fails runs no job.
fake=$work/fake-btc
printf '#!/bin/sh\necho "$@" >> "%s/fake.args"\nexit 1\n' "$work" > "$fake"
chmod +x "$fake"
BTC=$fake scripts/eval "$work/ex" --apps octree --gpus cuda --groups 1,2 --exhaustive 1 \
  --step 'octree-cuda-g1,octree-cuda-g2' > "$work/6.log" 2>&1 && fail "eval with a failing btc passed" "$work/6.log"
grep -q '^command: .* --exhaustive' "$work/ex/octree-cuda-g1/machine.txt" ||
  fail "eval --exhaustive 1: the g1 job without --exhaustive" "$work/ex/octree-cuda-g1/machine.txt"
if grep -q -- '--exhaustive' "$work/ex/octree-cuda-g2/machine.txt"; then
  fail "eval --exhaustive 1: the g2 job with --exhaustive" "$work/ex/octree-cuda-g2/machine.txt"
fi
grep -q '^command: .* --regret-round' "$work/ex/octree-cuda-g2/machine.txt" ||
  fail "eval --exhaustive 1: the g2 job without --regret-round" "$work/ex/octree-cuda-g2/machine.txt"
echo "ok: scripts/eval --exhaustive GROUPS"

# scripts/eval-workload passes what follows -- to btc (the workload job's
# --min-rounds 9 here), as the same stand-in and machine.txt record.
rm -f "$work/fake.args"
BTC=$fake scripts/eval-workload "$work/ew" --backend cuda --sizes 1 -- --min-rounds 9 \
  > "$work/ew.log" 2>&1 && fail "eval-workload with a failing btc passed" "$work/ew.log"
grep -q '^command: .* --min-rounds 9$' "$work/ew/octree-alexnet-cuda-1/machine.txt" ||
  fail "eval-workload: --min-rounds 9 not passed on" "$work/ew/octree-alexnet-cuda-1/machine.txt"
grep -q 'alexnet-dense.yaml --device host .* --min-rounds 9$' "$work/fake.args" ||
  fail "eval-workload: btc not given --min-rounds 9" "$work/fake.args"
echo "ok: scripts/eval-workload -- BTC_ARGS"

# scripts/bound-efficiency --refit on a committed H100 lease (E, one run):
# refits with this build, then one row per chosen run with the io farms the
# run had (1 loader, 2 checkers), its interval, and the count line.
scripts/bound-efficiency --refit docs/results/eval-h100-e > "$work/be.md" 2>&1 ||
  fail "bound-efficiency --refit: exit status $?" "$work/be.md"
grep -q '^| E | octree-cuda-g1 | cuda:0-5 cpu:6 | 0\.732 \[0\.717, 0\.770\] | [a-z]* | 1/2 |' "$work/be.md" ||
  fail "bound-efficiency: no row for E octree-cuda-g1 with its interval and io farms" "$work/be.md"
grep -q '^in \[0.85, 1\]: .* of 1 chosen runs' "$work/be.md" || fail "bound-efficiency: no count" "$work/be.md"
echo "ok: scripts/bound-efficiency --refit"

# scripts/runs-by-part on a committed lease that keeps the runs by part
# (ZN, btc 3b262f3): a row per verified schedule of octree-cuda-g1, the
# chosen marked, its stages against the other schedules'; a report from
# before the runs by part (lease E) has none, and says so.
scripts/runs-by-part docs/results/eval-h100-zn --run octree-cuda-g1 > "$work/rbp.md" 2>&1 ||
  fail "runs-by-part exit $?" "$work/rbp.md"
[ "$(grep -c '^| [a-z]*[0-9]*:[0-9]' "$work/rbp.md")" -eq "$(json docs/results/eval-h100-zn/octree-cuda-g1/octree-cuda-g1.json 'sum(c["status"] == "verified" for c in r["candidates"])')" ] ||
  fail "runs-by-part: not a row per verified schedule" "$work/rbp.md"
grep -q '^| cuda:0-5 cpu:6 \* | 0.742 | ' "$work/rbp.md" || fail "runs-by-part: the chosen's row" "$work/rbp.md"
grep -q '^| 6 | cpu | 0.788 | 0.711 | 1.358 | 6 |$' "$work/rbp.md" ||
  fail "runs-by-part: the chosen's stage 6 against the others'" "$work/rbp.md"
if scripts/runs-by-part docs/results/eval-h100-e > "$work/rbp-e.md" 2>&1; then
  fail "runs-by-part: a lease without runs by part did not fail" "$work/rbp-e.md"
fi
grep -q "no report with runs by part" "$work/rbp-e.md" || fail "runs-by-part: no reason given" "$work/rbp-e.md"
# Where runs kept steady means (btc after ZN), they are printed, and the
# header says so; with them in run 0 only, the header names the fallback.
python3 - docs/results/eval-h100-zn/octree-cuda-g1/octree-cuda-g1.json "$work/steady.json" "$work/steady0.json" <<'PY'
import json, sys
for out, runs in ((sys.argv[2], None), (sys.argv[3], 1)):
    r = json.load(open(sys.argv[1]))
    for c in r["candidates"]:
        for t in (c.get("runs_times") or [])[:runs]:
            t["chunks_steady_ms"] = [2.5 for x in t["chunks_ms"]]
            t["stages_steady_ms"] = [None if x is None else 0.5 for x in t["stages_ms"]]
            t["load_steady_ms"], t["check_steady_ms"] = 0.25, 0.375
    json.dump(r, open(out, "w"))
PY
scripts/runs-by-part "$work/steady.json" > "$work/rbp-s.md" 2>&1 || fail "runs-by-part (steady) exit $?" "$work/rbp-s.md"
grep -q '^## steady (.*): per-task steady means$' "$work/rbp-s.md" ||
  fail "runs-by-part: the header does not say steady means" "$work/rbp-s.md"
grep -q '^| cuda:0-5 cpu:6 \* | 0.742 | 2.500 2.500 | 2.500 | 0.30 | 0.500 0.500 0.500 0.500 0.500 0.500 0.500 | 0.250 | 0.375 |$' "$work/rbp-s.md" ||
  fail "runs-by-part: the steady means not printed" "$work/rbp-s.md"
scripts/runs-by-part "$work/steady0.json" > "$work/rbp-s0.md" 2>&1 || fail "runs-by-part (steady0) exit $?" "$work/rbp-s0.md"
grep -q '^## steady0 (.*): per-task steady means, means where a run.s report kept none$' "$work/rbp-s0.md" ||
  fail "runs-by-part: the header does not name the fallback" "$work/rbp-s0.md"
echo "ok: scripts/runs-by-part"

# scripts/bound-rejudge on the same lease: this build's bound beside the
# committed report's, per chosen run, each efficiency with its interval
# (by design: above 1 only where the bound lies inside the chosen's
# interval; a bound above the whole interval is flagged), and the
# per-schedule check is reported (below, of the schedules measured faster
# than the chosen).
scripts/bound-rejudge docs/results/eval-h100-e > "$work/rj.md" 2>&1 ||
  fail "bound-rejudge: exit status $?" "$work/rj.md"
grep -q '^| E | octree-cuda-g1 | cuda:0-5 cpu:6 | 0\.732 \[0\.717, 0\.770\] | 0\.693 | 0\.652, 0\.89 \[0\.85, 0\.91\] | [a-z]* / [a-z]* | [0-9.]* ([0-9.]* / [0-9.]*) | \(0\.[0-9]* \[[0-9.]*, [0-9.]*\]\|1\.[0-9]* \[[0-9.]*, 1\.[0-9]*\]\|([0-9.]* \[[0-9.]*, [0-9.]*\]) flagged\) | ' "$work/rj.md" ||
  fail "bound-rejudge: no row for E octree-cuda-g1 (median, final run, committed bound)" "$work/rj.md"
grep -q '| [0-9]* of [0-9]* |$' "$work/rj.md" || fail "bound-rejudge: no per-schedule check" "$work/rj.md"
grep -q '^in \[0.85, 1\]: [01] of 1 chosen runs (committed: 1); flagged' "$work/rj.md" ||
  fail "bound-rejudge: no count" "$work/rj.md"
# Lease L's alexnet-dense-vulkan-g1: the chosen's median 0.274 ms lies
# below the bound 0.278 ms, its interval [0.267, 0.281] holds it: within
# noise, the efficiency above 1 with its interval, not flagged (the
# committed report, judged on the median alone, flagged it); btc report
# prints the same in its efficiency column.
scripts/bound-rejudge docs/results/eval-h100-l --keep "$work/rj-l" > "$work/rj-l.md" 2>&1 ||
  fail "bound-rejudge L: exit status $?" "$work/rj-l.md"
grep -q '^| L | alexnet-dense-vulkan-g1 | vulkan:0-5 cpu:6-8 | 0\.274 \[0\.267, 0\.281\] | .* | 1\.01 \[0\.99, 1\.04\] | no | - |' "$work/rj-l.md" ||
  fail "bound-rejudge L: alexnet-dense-vulkan-g1 not 1.01 [0.99, 1.04], unflagged" "$work/rj-l.md"
grep -q "^efficiency: assignment bound / measured = 101\.5 % \[99\.1, 104\.2\] .*the bound lies inside the measured 95 % interval" \
  "$work/rj-l/eval-h100-l-alexnet-dense-vulkan-g1.log" ||
  fail "refit L: no efficiency line with its interval" "$work/rj-l/eval-h100-l-alexnet-dense-vulkan-g1.log"
"$btc" report "$work/rj-l/eval-h100-l-alexnet-dense-vulkan-g1.json" > "$work/rj-l-report.md" 2>&1 ||
  fail "btc report L: exit status $?" "$work/rj-l-report.md"
grep -q '| 0\.237 / 0\.278 | 101\.5 \[99\.1, 104\.2\] |' "$work/rj-l-report.md" ||
  fail "btc report L: no efficiency with its interval" "$work/rj-l-report.md"
echo "ok: scripts/bound-rejudge"

# The bound round's choice on real measurements (docs/report.md, "The
# bound round"): lease M's alexnet-dense-vulkan-g2 chose cpu0:0-2
# vulkan:3-5 cpu1:6-8 at efficiency 0.78; calibrated on its 30 measured
# schedules, the bound's model (the placed table's, lowered by rows:
# 0.280 ms, 0.258 when the isolated rows' baselines lowered it too) names
# vulkan:0-5 cpu1:6 cpu0:7-8, which
# the gapness filter had left out of the candidates: the job would build
# and race it. On alexnet-dense-vulkan-g1 the calibrated assignment,
# vulkan:0-5 cpu:6-8, was a candidate, measured.
for g in 1 2; do
  d=docs/results/eval-h100-m/alexnet-dense-vulkan-g$g
  "$btc" tune apps/alexnet-dense.yaml --device "$d/host-g$g.yaml" --gpu vulkan \
    --table "$(ls "$d"/alexnet_dense-host-*.csv)" --measurements "$d/alexnet-dense-vulkan-g$g.json" \
    > "$work/brm-$g.log" 2>&1 || fail "btc tune --measurements (M, g$g): exit status $?" "$work/brm-$g.log"
done
grep -q "^bound round: the calibrated model's best assignment (placed table, bound 0\.280 ms) is vulkan:0-5 cpu1:6 cpu0:7-8, not among the measured" "$work/brm-2.log" ||
  fail "bound round (M, g2): not vulkan:0-5 cpu1:6 cpu0:7-8, unmeasured" "$work/brm-2.log"
grep -q "^bound round: the calibrated model's best assignment (.* table, bound 0\.2[0-9]* ms) is vulkan:0-5 cpu:6-8, schedule [0-9]*, measured" "$work/brm-1.log" ||
  fail "bound round (M, g1): not vulkan:0-5 cpu:6-8, measured" "$work/brm-1.log"
echo "ok: the bound round's calibrated assignment on lease M's measurements"

# scripts/workload-attain on a committed H100 workload report (lease C,
# Vulkan 1+1): each stream's planned rate (predicted M x w / the table's
# solo period) and M over the table's solo rates, against an independent
# count from the report.
wr=docs/results/workload-h100-c/octree+alexnet-vulkan-1/octree+alexnet-vulkan-1.json
scripts/workload-attain $wr > "$work/wa.txt" 2>&1 || fail "workload-attain: exit status $?" "$work/wa.txt"
want=$(json $wr '"M_table %.3f  predicted %.3f" % (min(
  t * s["solo_predicted_ms"] / 1000 / s["weight"]
  for t, s in zip([j for j in r["colocation"]["joint"] if j["index"] == r["colocation"]["best"]][0]["tasks_per_s"], r["streams"])),
  r["plan"]["predicted"][r["colocation"]["best"]])')
grep -qF -- "$want" "$work/wa.txt" || fail "workload-attain: no '$want'" "$work/wa.txt"
want=$(json $wr '"%.1f" % (r["plan"]["predicted"][r["colocation"]["best"]] * 1000 / r["streams"][0]["solo_predicted_ms"])')
grep -q "^  octree#0 *$want " "$work/wa.txt" || fail "workload-attain: octree's planned rate is not $want" "$work/wa.txt"
echo "ok: scripts/workload-attain"

# scripts/workload-gpu-wait on a committed H100 run report (lease L's
# Vulkan 2+2 A/B, fair admission, one device with a queue per stream):
# each GPU chunk's submit-to-fence, GPU time and their difference, and
# the GPU's busy fraction, against an independent count from the report;
# then a workload job report made from it (the chosen candidate's chunks).
vr=docs/results/workload-h100-k/ab/vk-ab/r1-fair-one.json
scripts/workload-gpu-wait $vr > "$work/gw.txt" 2>&1 || fail "workload-gpu-wait: exit status $?" "$work/gw.txt"
json $vr '"\n".join("%d %.3f %.3f %.3f" % (s["stream"], c["ms"]["median"], c["stages_ms"], c["ms"]["median"] - c["stages_ms"])
  for s in r["streams"] for c in s["chunks"] if c["pu"] == "vulkan")' > "$work/gw-want.txt"
while read -r st s2f gpu wait; do
  grep -Eq "^  $st +alexnet_dense +vulkan:0-[67] +2/[01] +[0-9.]+ +$s2f +$gpu +$wait " "$work/gw.txt" ||
    fail "workload-gpu-wait: no row '$st $s2f $gpu $wait'" "$work/gw.txt"
done < "$work/gw-want.txt"
[ "$(wc -l < "$work/gw-want.txt")" = 2 ] || fail "workload-gpu-wait: not 2 Vulkan chunks in $vr" "$work/gw-want.txt"
want=$(json $vr '"GPU busy %.3f of the wall time (2 GPU chunks; 2 queues)" % sum(
  s["tasks_per_s"] * c["stages_ms"] / 1000 for s in r["streams"] for c in s["chunks"] if c["pu"] == "vulkan")')
grep -qF -- "$want" "$work/gw.txt" || fail "workload-gpu-wait: no '$want'" "$work/gw.txt"
json $vr 'json.dumps({"kind": "workload", "streams": [{"app": s["app"]} for s in r["streams"]],
  "colocation": {"best": 0, "streams": r["streams"], "joint": [{"index": 0,
  "tasks_per_s": [s["tasks_per_s"] for s in r["streams"]],
  "chunks": [[dict(c, ms=c["ms"]["median"]) for c in s["chunks"]] for s in r["streams"]],
  "vk": [{"device": s["vk_device"], "queue": s["vk_queue"]} if "vk_device" in s else None
         for s in r["streams"]]}]}})' > "$work/gw-job.json"
scripts/workload-gpu-wait "$work/gw-job.json" > "$work/gwj.txt" 2>&1 ||
  fail "workload-gpu-wait (job report): exit status $?" "$work/gwj.txt"
grep -qF -- "$want" "$work/gwj.txt" || fail "workload-gpu-wait (job report): no '$want'" "$work/gwj.txt"
echo "ok: scripts/workload-gpu-wait"

# scripts/workload-start-phase on a made-up measurement: one alexnet-dense
# solo (1000/s for 200 ms, then 2000/s for 200 ms: 1330/s over the first
# 300 ms, 399 tasks) and smi samples every
# 20 ms whose SM clock goes from 345 to 1980 MHz 260 ms after the first
# task; clock.txt maps CLOCK_MONOTONIC 100 s to the wall time 1e9 s.
sp=$work/start-phase
mkdir -p "$sp"
python3 - "$sp" << 'PY'
import json, sys, time
d = sys.argv[1]
t0 = 101_000_000_000   # ns, CLOCK_MONOTONIC
ts = [t0 + k * 1_000_000 for k in range(200)] + [t0 + 200_000_000 + k * 500_000 for k in range(1, 401)]
json.dump({"streams": [{"app": "alexnet_dense", "checked_at_ns": ts}]}, open(d + "/r1-solo1.json", "w"))
open(d + "/clock.txt", "w").write("100.0 1000000000.0\n")
with open(d + "/smi.csv", "w") as f:
    f.write("timestamp, pstate, clocks.current.sm [MHz], clocks.current.memory [MHz], pcie.link.gen.current, utilization.gpu [%]\n")
    for k in range(100):   # monotonic 100.5 s + 20 ms k
        ms = 500 + 20 * k
        wall = 1000000000 + ms // 1000
        f.write("%s.%03d, P0, %d MHz, 2619 MHz, 5, %d %%\n" % (
            time.strftime("%Y/%m/%d %H:%M:%S", time.gmtime(wall)), ms % 1000,
            1980 if ms >= 1260 else 345, 90 if ms >= 1000 else 0))
PY
scripts/workload-start-phase "$sp" > "$work/sp.txt" 2>&1 || fail "workload-start-phase: exit status $?" "$work/sp.txt"
grep -Eq "^r1-solo1 +400 \| +1000 +1330 +2000 +2000 +200 \| +\| +345 +345 +1980 +260 P0 +5 +90 +90$" "$work/sp.txt" ||
  fail "workload-start-phase: not the made-up run's rates, switch at 200 ms and 1980 MHz at 260 ms" "$work/sp.txt"
scripts/workload-start-phase "$sp" --timeline r1-solo1 > "$work/spt.txt" 2>&1 ||
  fail "workload-start-phase --timeline: exit status $?" "$work/spt.txt"
grep -q "^  260  alexnet  2000  SM 1980 MHz P0 gen 5 util  90%" "$work/spt.txt" ||
  fail "workload-start-phase --timeline: no 260 ms window at 2000/s and 1980 MHz" "$work/spt.txt"
echo "ok: scripts/workload-start-phase"

# scripts/trace-windows on a made-up trace (10 tasks, warm-up 2 from the
# run report beside it): the chunk ran each task in 0.1 ms, back to back,
# and task 1's check ended 0.05 ms late, so the sink's window is shorter
# than the chunk's: period (1.100 - 0.350) / 8 = 0.09375 ms, the chunk's
# mean and own rate 0.1 ms, 1.067 of the period.
tw=$work/tw
mkdir -p "$tw"
/usr/bin/python3 - "$tw" <<'PY' || fail "trace-windows: cannot write the made-up trace"
import gzip, json, sys
d = sys.argv[1]
ev = [{"name": "thread_name", "ph": "M", "pid": 1, "tid": t, "args": {"name": n}}
      for t, n in ((0, "io check (sink)"), (1, "chunk 0 cpu (cpu)"), (2000, "io load (source)"))]
for k in range(10):
    ev.append({"name": "load", "ph": "X", "pid": 1, "tid": 2000, "ts": 100 * k - 20, "dur": 10, "args": {"seq": k}})
    ev.append({"name": "task %d" % k, "ph": "X", "pid": 1, "tid": 1, "ts": 100 * k, "dur": 100, "args": {"seq": k}})
    ev.append({"name": "check", "ph": "X", "pid": 1, "tid": 0, "ts": 100 * k + 190 + (50 if k == 1 else 0),
               "dur": 10, "args": {"seq": k}})
with gzip.open(d + "/r-trace.json.gz", "wt") as f:
    json.dump({"traceEvents": ev}, f)
with gzip.open(d + "/r-run.json.gz", "wt") as f:
    json.dump({"warmup": 2}, f)
PY
scripts/trace-windows "$tw/r-trace.json.gz" > "$tw/out.md" 2>&1 || fail "trace-windows: exit status $?" "$tw/out.md"
grep -q "tasks 2..9 (8 measured), period 0.0938 ms/task" "$tw/out.md" ||
  fail "trace-windows: not the sink's period over tasks 2..9" "$tw/out.md"
grep -qF "| chunk 0 cpu (cpu) | 8 | 0.1000 | 0.1000 | 1.00 | 1.067 | 1.067 |" "$tw/out.md" ||
  fail "trace-windows: not the chunk's window" "$tw/out.md"
scripts/trace-windows "$tw/r-trace.json.gz" --warmup 0 > "$tw/out0.md" 2>&1 ||
  fail "trace-windows --warmup 0: exit status $?" "$tw/out0.md"
grep -q "tasks 0..9 (10 measured)" "$tw/out0.md" || fail "trace-windows: --warmup not taken" "$tw/out0.md"
if scripts/trace-windows "$tw/none.json" > "$tw/bad.txt" 2>&1; then
  fail "trace-windows: a missing trace read as good" "$tw/bad.txt"
fi
echo "ok: scripts/trace-windows"

# scripts/table-vs-runs on a made-up report and table: stage a ran on the
# CPU in one schedule (1.0 ms in each run) against a table cell of 2.0 ms
# (ratio 2.00); stage b in two (medians 2.0 and 2.2: 2.1) against 2.1 ms,
# its cell fenced (2 of 30); the cuda rows and the farm are left out.
tv=$work/tv
mkdir -p "$tv"
cat > "$tv/t.csv" <<'CSV'
# btc profiling table
stage,pu,mode,mean_ms,stddev_ms,samples
a,cpu,isolated,2.000000,1.000000,30
a,cuda,isolated,0.100000,0.001000,10
b,cpu,isolated,2.100000,0.210000,28
# fenced: b,cpu,isolated: 2 of 30 repetitions beyond Tukey's far-out fences left out of the mean
b,cpu,interference,9.000000,0.100000,30
CSV
cat > "$tv/r.json" <<'JSON'
{"candidates": [
 {"label": "cpu:0-1", "status": "verified", "runs_times": [
   {"stages_steady_ms": [1.0, 2.0]}, {"stages_steady_ms": [1.0, 1.9]}, {"stages_steady_ms": [1.0, 2.1]}]},
 {"label": "cuda:0 cpu:1", "status": "verified", "runs_times": [
   {"stages_steady_ms": [0.1, 2.2]}, {"stages_ms": [0.1, 2.2]}]},
 {"label": "cpu:0-1", "status": "failed", "runs_times": [{"stages_steady_ms": [9.0, 9.0]}]},
 {"label": "cpu*2:0-1", "status": "verified", "runs_times": [{"stages_steady_ms": [9.0, 9.0]}]}]}
JSON
scripts/table-vs-runs "$tv/r.json" "$tv/t.csv" --pu cpu > "$tv/out.md" 2>&1 ||
  fail "table-vs-runs: exit status $?" "$tv/out.md"
grep -qxF "| a | cpu | 2.000 | 50 | 30 | none | 1.000 | 1 | 2.00 |" "$tv/out.md" ||
  fail "table-vs-runs: stage a" "$tv/out.md"
grep -qxF "| b | cpu | 2.100 | 10 | 28 | 2 of 30 | 2.100 | 2 | 1.00 |" "$tv/out.md" ||
  fail "table-vs-runs: stage b" "$tv/out.md"
! grep -q "cuda" "$tv/out.md" || fail "table-vs-runs: --pu cpu printed cuda" "$tv/out.md"
if scripts/table-vs-runs "$tv/r.json" "$tv/t.csv" --mode placed > "$tv/bad.txt" 2>&1; then
  fail "table-vs-runs: a mode without rows read as good" "$tv/bad.txt"
fi
# --estimator from the cells' `# reps:` lines: stage a's 30 repetitions,
# 20 of 1 ms and 10 of 5 ms (a third slow, as on a noisy lease), against
# 1.0 ms in the pipeline: the quartiles take the slow third in (tukey and
# mean 2.333), the median absolute deviation does not (hampel 1.000, 10
# of 30 left out; median 1.000); stage b has no repetitions (n/a).
{
  echo "# btc profiling table"
  echo "stage,pu,mode,mean_ms,stddev_ms,samples"
  echo "a,cpu,isolated,2.333333,1.917771,30"
  printf '# reps: a,cpu,isolated:'
  for i in $(seq 10); do printf ' 1'; done
  for i in $(seq 10); do printf ' 5'; done
  for i in $(seq 10); do printf ' 1'; done
  echo
  echo "b,cpu,isolated,2.100000,0.210000,28"
} > "$tv/t2.csv"
for e in table mean median tukey hampel; do
  scripts/table-vs-runs "$tv/r.json" "$tv/t2.csv" --pu cpu --estimator $e > "$tv/$e.md" 2>&1 ||
    fail "table-vs-runs --estimator $e: exit status $?" "$tv/$e.md"
done
grep -qxF "| a | cpu | 2.333 | 82 | 30 | none | 1.000 | 1 | 2.33 |" "$tv/tukey.md" ||
  fail "table-vs-runs --estimator tukey: stage a" "$tv/tukey.md"
grep -qxF "| a | cpu | 2.333 | 82 | 30 | none | 1.000 | 1 | 2.33 |" "$tv/mean.md" ||
  fail "table-vs-runs --estimator mean: stage a" "$tv/mean.md"
grep -qxF "| a | cpu | 1.000 | 0 | 20 | 10 of 30 | 1.000 | 1 | 1.00 |" "$tv/hampel.md" ||
  fail "table-vs-runs --estimator hampel: stage a" "$tv/hampel.md"
grep -q "^| a | cpu | 1.000 | [0-9]* | 30 | none | 1.000 | 1 | 1.00 |$" "$tv/median.md" ||
  fail "table-vs-runs --estimator median: stage a" "$tv/median.md"
grep -qxF "| b | cpu | n/a | n/a | n/a | no repetitions | 2.100 | 2 | n/a |" "$tv/hampel.md" ||
  fail "table-vs-runs --estimator hampel: stage b without repetitions" "$tv/hampel.md"
grep -qF "1 cells with pipeline figures (hampel): table / pipelines geometric mean 1.00" \
  "$tv/hampel.md" || fail "table-vs-runs --estimator hampel: the summary" "$tv/hampel.md"
grep -qF "| b | cpu | 2.100 | 10 | 28 | none | 2.100 | 2 | 1.00 |" "$tv/table.md" ||
  fail "table-vs-runs --estimator table: stage b" "$tv/table.md"
if scripts/table-vs-runs "$tv/r.json" "$tv/t.csv" --estimator hampel > "$tv/bad.txt" 2>&1; then
  fail "table-vs-runs: --estimator hampel on a table without # reps: read as good" "$tv/bad.txt"
fi
echo "ok: scripts/table-vs-runs"

# scripts/playoff-replay on made-up reports: a's undecided race (1 tuning
# round, ratios 1.05, then 0.90 0.95 1.02 raced: race 0.95, pooled 0.985)
# goes to the runner-up under the pooled rule; b's (3 tuning rounds 1.10
# 1.20 1.05, raced 0.90 0.95 1.01: race 0.95, pooled 1.03) stays; c's
# decided gain goes to the runner-up under both; d's runs do not give its
# race's median (exit status 1).
pr=$work/pr
mkdir -p "$pr/a" "$pr/b" "$pr/c" "$pr/d"
report() { # DIR W_RUNS U_RUNS ROUNDS RACE_ROUNDS MEDIAN LO HI DECIDED
  cat > "$1/r.json" <<JSON
{"playoff": {"status": "raced", "winner": 0, "runner_up": 1, "rounds": $5,
  "ratio_median": $6, "ratio_ci_low": $7, "ratio_ci_high": $8, "decided": $9, "kept": false},
 "candidates": [{"label": "cpu:0 gpu:1", "rounds": $4, "runs_ms": [$2]},
                {"label": "gpu:0-1", "rounds": $4, "runs_ms": [$3]}]}
JSON
}
report "$pr/a" "1, 1, 1, 1" "1.05, 0.90, 0.95, 1.02" 1 3 0.95 0.90 1.02 false
report "$pr/b" "1, 1, 1, 1, 1, 1" "1.10, 1.20, 1.05, 0.90, 0.95, 1.01" 3 3 0.95 0.90 1.01 false
report "$pr/c" "1, 1, 1, 1, 1, 1, 1" "1.0, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8" 1 6 0.8 0.8 0.8 true
scripts/playoff-replay "$pr/a" "$pr/b" "$pr/c" > "$pr/out.md" 2>&1 ||
  fail "playoff-replay: exit status $?" "$pr/out.md"
grep -qxF "| $pr/a/r.json | 1 | 3 | 0.950 | 0.985 | winner | runner-up | cpu:0 gpu:1 | gpu:0-1 |" "$pr/out.md" ||
  fail "playoff-replay: report a" "$pr/out.md"
! grep -q "$pr/[bc]/" "$pr/out.md" || fail "playoff-replay: a row where the rules agree" "$pr/out.md"
grep -qxF "3 raced playoffs; 2 undecided; the pooled rule switches 1; 0 whose runs do not give the race's median" "$pr/out.md" ||
  fail "playoff-replay: the counts" "$pr/out.md"
scripts/playoff-replay --all "$pr" > "$pr/all.md" 2>&1 || fail "playoff-replay --all: exit status $?" "$pr/all.md"
grep -qF "| $pr/b/r.json | 3 | 3 | 0.950 | 1.030 | winner | winner |" "$pr/all.md" ||
  fail "playoff-replay --all: report b" "$pr/all.md"
report "$pr/d" "1, 1, 1, 1" "1.05, 0.90, 0.95, 1.02" 1 3 0.80 0.70 1.02 false
if scripts/playoff-replay "$pr/d" > "$pr/bad.txt" 2>&1; then
  fail "playoff-replay: runs that do not give the race's median read as good" "$pr/bad.txt"
fi
echo "ok: scripts/playoff-replay"

# scripts/group-asymmetry: made-up g2 reports, cpu0's baseline at twice
# cpu1's and a mirror pair at 1.5 (placed rows reading 1.2 of it, the
# isolated rows neither); an unverified schedule is left out. Then the
# committed lease J: octree-cuda-g2's cpu0 baseline 1.396 times cpu1's,
# and its two tables' twin cells (conv1's and morton's pairs apart).
ga=$work/ga
mkdir -p "$ga/x-g2"
cat > "$ga/x-g2/x-g2.json" <<'JSON'
{"candidates": [
 {"label": "cpu0:0-2", "status": "verified", "measured_ms_per_task": 2.0, "predicted_ms": {"isolated": 1.0, "placed": 1.0}},
 {"label": "cpu1:0-2", "status": "verified", "measured_ms_per_task": 1.0, "predicted_ms": {"isolated": 1.0, "placed": 1.0}},
 {"label": "cpu0:0 gpu:1-2", "status": "verified", "measured_ms_per_task": 1.5, "predicted_ms": {"isolated": 1.0, "placed": 1.2}},
 {"label": "cpu1:0 gpu:1-2", "status": "verified", "measured_ms_per_task": 1.0, "predicted_ms": {"isolated": 1.0, "placed": 1.0}},
 {"label": "gpu:0 cpu0:1-2", "status": "failed", "measured_ms_per_task": 9.0, "predicted_ms": {"isolated": 1.0, "placed": 1.0}},
 {"label": "gpu:0 cpu1:1-2", "status": "verified", "measured_ms_per_task": 1.0, "predicted_ms": {"isolated": 1.0, "placed": 1.0}}]}
JSON
scripts/group-asymmetry "$ga" > "$ga/out.md" 2>&1 || fail "group-asymmetry: exit status $?" "$ga/out.md"
grep -qxF "| ga x-g2 | 2.000 | 1.000 | 1.000 |" "$ga/out.md" || fail "group-asymmetry: the baselines' row" "$ga/out.md"
grep -qxF "isolated: over 2 mirror pairs, median |log measured ratio| 0.549, |log predicted| 0.000, |log measured - log predicted| 0.549, the same sign in 0" "$ga/out.md" ||
  fail "group-asymmetry: the isolated rows' pairs" "$ga/out.md"
grep -qxF "placed: over 2 mirror pairs, median |log measured ratio| 0.549, |log predicted| 0.091, |log measured - log predicted| 0.458, the same sign in 1" "$ga/out.md" ||
  fail "group-asymmetry: the placed rows' pairs" "$ga/out.md"
scripts/group-asymmetry docs/results/eval-h200-j > "$ga/j.md" 2>&1 || fail "group-asymmetry J: exit status $?" "$ga/j.md"
grep -qxF "| eval-h200-j octree-cuda-g2 | 1.396 | 0.999 | 0.999 |" "$ga/j.md" || fail "group-asymmetry J: octree-cuda-g2" "$ga/j.md"
grep -qxF "isolated: 0:0.324 1:0.028 2:0.031 3:0.011 4:0.295 5:0.044 6:0.054 7:0.119 8:0.006" "$ga/j.md" ||
  fail "group-asymmetry J: the isolated twin cells by stage" "$ga/j.md"
if scripts/group-asymmetry > "$ga/usage.txt" 2>&1; then
  fail "group-asymmetry: no folder given, exit status 0" "$ga/usage.txt"
fi
echo "ok: scripts/group-asymmetry"

# scripts/candidate-cover on the committed leases J, L and M: J's table
# leaves alexnet-dense-cuda-g2's most chosen schedule out without the
# near-period slice and holds it with it (docs/scheduler.md); M's holds it
# either way.
cc=$work/cc
mkdir -p "$cc"
prog=$(dirname "$(dirname "$btc")")/test/sched/sched-candidates
scripts/candidate-cover --sched-candidates "$prog" docs/results/eval-h200-j docs/results/eval-h200-l \
  docs/results/eval-h200-m > "$cc/out.md" 2>&1 || fail "candidate-cover: exit status $?" "$cc/out.md"
grep -qxF "| eval-h200-j alexnet-dense-cuda-g2 | cpu1:0-2 cuda:3-6 cpu0:7-8 | no | yes | 21 / 24 |" "$cc/out.md" ||
  fail "candidate-cover: J's alexnet-dense-cuda-g2" "$cc/out.md"
grep -qxF "| eval-h200-m alexnet-dense-cuda-g2 | cpu1:0-2 cuda:3-6 cpu0:7-8 | yes | yes | 19 / 22 |" "$cc/out.md" ||
  fail "candidate-cover: M's alexnet-dense-cuda-g2" "$cc/out.md"
grep -qxF "| alexnet-dense-cuda-g2 | 3 | 1 | 3 | 19.7 / 22.7 | 0 |" "$cc/out.md" ||
  fail "candidate-cover: the alexnet-dense-cuda-g2 total" "$cc/out.md"
if scripts/candidate-cover > "$cc/usage.txt" 2>&1; then
  fail "candidate-cover: no folder given, exit status 0" "$cc/usage.txt"
fi
echo "ok: scripts/candidate-cover"
