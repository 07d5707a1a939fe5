#!/usr/bin/env bash
# Measurements that reproduce: the main job on examples/vecadd (CPU and
# llvmpipe) with --seed 1. The round orders are printed, shuffled and the
# same on a second run with the same seed; the report has the schema-3
# fields (median, interval, runs per schedule; the head to head or the
# reason there is none; the final run apart, for the trace only; the fit);
# one figure per schedule: the printed table, the report and btc report
# show the same median.
set -euo pipefail
btc=$1 src=$2 work=$3
. "$src/test/driver/lib.sh"
need_vulkan "$btc"
rm -rf "$work" && mkdir -p "$work"
app=$src/examples/vecadd/vecadd.yaml
host_table "$btc" "$app" "$work/table.csv"
job() { "$btc" "$app" --device host --gpu vulkan --run --table "$work/table.csv" -o "$work/out" \
  --seed 1 --tune-budget 20 --tasks 32 "$@"; }

job --report "$work/r.json" > "$work/1.log" 2>&1 || fail "exit status $?" "$work/1.log"
grep -q "^tune: seed 1 (--seed 1 repeats these orders)" "$work/1.log" || fail "seed not printed" "$work/1.log"
grep -q "^tune: round 1 order: [0-9 ]*$" "$work/1.log" || fail "round order not printed" "$work/1.log"
grep "^tune: round [0-9]* order:" "$work/1.log" | sed 's/.*order://' > "$work/orders1"
[ "$(sort -u "$work/orders1" | wc -l)" -gt 1 ] || fail "every round in the same order" "$work/1.log"
r=$work/r.json
[ "$(json "$r" 'r["schema_version"]')" = 3 ] || fail "schema_version" "$r"
[ "$(json "$r" 'r["tuning"]["seed"]')" = 1 ] || fail "tuning.seed" "$r"
[ "$(json "$r" 'all(c["runs"] >= 3 and c["measured_ci_low_ms"] <= c["measured_ms_per_task"] <= c["measured_ci_high_ms"] for c in r["candidates"] if c["status"] == "verified")')" = True ] ||
  fail "candidates without median, interval and runs" "$r"
[ "$(json "$r" 'r["final_run"]["tasks"], r["final_run"]["warmup"], r["final_run"]["use"]')" = "(32, 4, 'trace only')" ] ||
  fail "final run: measured tasks and warm-up apart" "$r"
# One figure per schedule: the chosen and the best baseline are the medians.
[ "$(json "$r" 'r["measured_ms_per_task"] == r["candidates"][r["schedule"]["index"]]["measured_ms_per_task"]')" = True ] ||
  fail "the chosen schedule's figure is not its median" "$r"
[ "$(json "$r" 'r["best_baseline"]["measured_ms_per_task"] == r["candidates"][r["best_baseline"]["index"]]["measured_ms_per_task"]')" = True ] ||
  fail "the best baseline's figure is not its median" "$r"
if [ "$(json "$r" 'r["head_to_head"] is not None')" = True ]; then
  [ "$(json "$r" 'r["head_to_head"]["rounds"] >= 1 and r["head_to_head"]["ratio_ci_low"] <= r["head_to_head"]["ratio_median"] <= r["head_to_head"]["ratio_ci_high"]')" = True ] ||
    fail "head_to_head" "$r"
  if [ "$(json "$r" 'r["no_significant_gain"]')" = True ]; then
    grep -q "^no significant gain: " "$work/1.log" || fail "no significant gain not printed" "$work/1.log"
    [ "$(json "$r" 'r["candidates"][r["schedule"]["index"]]["kind"]')" = baseline ] ||
      fail "no significant gain, yet the baseline was replaced" "$r"
  else
    [ "$(json "$r" 'r["head_to_head"]["ratio_ci_high"] < 1')" = True ] || fail "a gain claimed with an interval reaching 1" "$r"
  fi
fi
[ "$(json "$r" 'len(r["fit"]["models"]) >= 4 and r["fit"]["mode"] is not None')" = True ] || fail "fit" "$r"
grep -q "<svg" "$work/out/fit.svg" || fail "no fit.svg"
# The printed table shows the report's medians.
json "$r" '"\n".join("%d %.3f" % (c["index"], c["measured_ms_per_task"]) for c in r["candidates"] if c["status"] == "verified")' > "$work/report.txt"
sed -nE 's/^([0-9]+) +(candidate|baseline) .* ([0-9.]+) +\[[0-9.]+, [0-9.]+\].*/\1 \3/p' "$work/1.log" > "$work/printed.txt"
diff "$work/report.txt" "$work/printed.txt" > /dev/null || fail "printed table and report differ: $(diff "$work/report.txt" "$work/printed.txt")"
"$btc" report "$r" > "$work/r.md"
m=$(json "$r" '"%.3f" % r["measured_ms_per_task"]')
grep -q "| $m |" "$work/r.md" || fail "btc report shows another figure than $m" "$work/r.md"
echo "ok: interleaved rounds, medians with intervals, one figure per schedule, fit"

# The same seed, the same orders (as far as both runs got).
job > "$work/2.log" 2>&1 || fail "second run: exit status $?" "$work/2.log"
grep "^tune: round [0-9]* order:" "$work/2.log" | sed 's/.*order://' > "$work/orders2"
# Racing starts after round 3 and times vary: rounds 1-3 run the same
# schedules, so their orders must be the same.
[ "$(head -3 "$work/orders1")" = "$(head -3 "$work/orders2")" ] || fail "seed 1 gave other orders"
echo "ok: --seed 1 repeats the orders of rounds 1-3"
