#!/usr/bin/env bash
# Checks are binding: an app whose Vulkan `add` and CPU `square` kernels
# are wrong (examples/vecadd, made wrong here) fails 5 of its 6 schedules, both baselines
# among them. btc must exit 1 naming each failed schedule and its task;
# with --keep-going it exits 0 (the chosen schedule verified) and the
# report says so honestly: verified false, failed candidates, no best
# baseline and no speedup, each null with a reason.
set -euo pipefail
btc=$1 src=$2 work=$3
. "$src/test/driver/lib.sh"
btc_test_need_vulkan driver-checks
rm -rf "$work" && mkdir -p "$work"
# examples/vecadd made wrong on purpose: the Vulkan `add` shader and the
# CPU `square` kernel add 1, so only CPU `add` followed by Vulkan `square`
# verifies. Each edit must hit its line, or the test would pass on a
# correct app.
cp -r "$src/examples/vecadd" "$work/wrong-vecadd"
app=$work/wrong-vecadd/vecadd.yaml
wrong() { # FILE FROM TO
  grep -qF "$2" "$1" || { echo "FAIL: '$2' not in $1: the wrong app would be right"; exit 1; }
  FROM=$2 TO=$3 perl -pi -e 's/\Q$ENV{FROM}\E/$ENV{TO}/' "$1"
}
wrong "$work/wrong-vecadd/add.comp" "z[i] = y[i] + x[i];" "z[i] = y[i] + x[i] + 1.0;"
wrong "$work/wrong-vecadd/vecadd.c" "t->z[i] = t->z[i] * t->z[i];" "t->z[i] = t->z[i] * t->z[i] + 1.0f;"
host_table "$btc" "$app" "$work/table.csv"
job() { "$btc" "$app" --device host --gpu vulkan --run --table "$work/table.csv" -o "$work/out" "$@"; }

# 1. Without --keep-going: exit 1, every failure named, no report.
set +e
job --report "$work/r1.json" > "$work/1.log" 2>&1
rc=$?
set -e
[ $rc -eq 1 ] || fail "exit status $rc, expected 1" "$work/1.log"
grep -q "^error: schedule [0-9]* ([a-z0-9_]*:0-2), .*check of task [0-9]* (slot [0-9]*) failed" "$work/1.log" ||
  fail "no error naming a baseline and its task" "$work/1.log"
# the check's message comes from the program's --failure JSON (kind
# BTRT_E_CHECK), not from its exit status and last line
! grep -q "exited with status 1: .*check of task" "$work/1.log" ||
  fail "a failed check quoted from stderr, not read from --failure" "$work/1.log"
grep -q "^error: schedule [0-9]* ([a-z0-9]*:0-2), output of stage 'square'" "$work/1.log" ||
  fail "no error naming a baseline and the stage" "$work/1.log"
n=$(grep -c "^error: schedule" "$work/1.log")
[ "$n" -eq 5 ] || fail "$n schedules named, expected 5" "$work/1.log"
if grep -q "verified: every task" "$work/1.log"; then fail "claims verification" "$work/1.log"; fi
[ ! -e "$work/r1.json" ] || fail "a failed job wrote a report"
echo "ok: without --keep-going: exit 1, 5 schedules named"

# 2. --keep-going: exit 0, the failures marked, nothing claimed.
set +e
job --keep-going --report "$work/r2.json" > "$work/2.log" 2>&1
rc=$?
set -e
[ $rc -eq 0 ] || fail "--keep-going: exit status $rc, expected 0" "$work/2.log"
r=$work/r2.json
[ "$(json "$r" 'r["verified"]')" = False ] || fail "report: verified is not false" "$work/2.log"
[ "$(json "$r" 'r["chosen_verified"]')" = True ] || fail "report: chosen_verified is not true"
[ "$(json "$r" 'r["failed_schedules"]')" = 5 ] || fail "report: failed_schedules is not 5"
[ "$(json "$r" 'sum(c["status"] == "failed" for c in r["candidates"])')" = 5 ] ||
  fail "report: not 5 candidates with status failed"
[ "$(json "$r" 'all(c["measured_ms_per_task"] is None for c in r["candidates"] if c["status"] == "failed")')" = True ] ||
  fail "report: a failed candidate has a measured time"
[ "$(json "$r" 'all("check of task" in c["error"] for c in r["candidates"] if c["status"] == "failed")')" = True ] ||
  fail "report: a failed candidate without its error"
[ "$(json "$r" 'r["best_baseline"]')" = None ] || fail "report: best_baseline is not null"
[ -n "$(json "$r" 'r["best_baseline_null_reason"]')" ] || fail "report: no best_baseline_null_reason"
[ "$(json "$r" 'r["speedup_vs_best_baseline"]')" = None ] || fail "report: speedup is not null"
[ -n "$(json "$r" 'r["speedup_null_reason"]')" ] || fail "report: no speedup_null_reason"
# The wrong kernels are vulkan's add and cpu's square: the report says where.
[ -n "$(json "$r" 'r.get("failure_diagnosis") or ""')" ] || fail "report: no failure_diagnosis"
grep -q "^where: " "$work/2.log" || fail "console: no 'where:' line" "$work/2.log"
[ "$(json "$r" 'r["candidates"][r["schedule"]["index"]]["status"]')" = verified ] ||
  fail "report: the chosen schedule is not a verified one"
n=$(grep -cE "^[0-9]+ +(candidate|baseline) .* failed +[0-9]+" "$work/2.log")
[ "$n" -eq 5 ] || fail "the printed table shows $n failed rows, expected 5" "$work/2.log"
if grep -q " 0\.000 " "$work/2.log"; then fail "a 0.000 time printed" "$work/2.log"; fi
echo "ok: --keep-going: exit 0, 5 schedules marked failed, speedup null with a reason"

# 3. `btc report` reads it back: no speedup, not verified.
"$btc" report "$r" > "$work/3.md"
grep -q "| n/a | n/a | .* | chosen only |" "$work/3.md" || fail "btc report" "$work/3.md"
echo "ok: btc report"
