#!/usr/bin/env bash
# SIGINT or SIGTERM to btc's PID alone (not its process group, so only
# btc's own forwarding can reach the children) stops the job: exit 130, no
# child left, no temporary file in the cache, no report. Once in the tune
# phase of the main job (after the Z3 solve, which used to reinstall btc's
# handler with SA_RESTART so the running pipeline never heard of it), once
# while `btc profile` runs the profiler. SIGKILL to btc: its program ends
# with it (PR_SET_PDEATHSIG).
set -euo pipefail
btc=$1 src=$2 work=$3
. "$src/test/driver/lib.sh"
rm -rf "$work" && mkdir -p "$work/cache"
app=$src/examples/vecadd/vecadd.yaml
host_table "$btc" "$app" "$work/table.csv"
pid=
# Whatever happens, the btc this test started does not outlive it.
trap 'if [ -n "$pid" ]; then kill -INT "$pid" 2> /dev/null || true; fi' EXIT

# wait_for LOG PATTERN PID: until the log shows the pattern (60 s at most).
wait_for() {
  for _ in $(seq 1 600); do
    grep -q "$2" "$1" 2>/dev/null && return 0
    kill -0 "$3" 2>/dev/null || fail "btc ended before '$2'" "$1"
    sleep 0.1
  done
  fail "no '$2' within 60 s" "$1"
}

# ours PATTERN: the processes whose command line matches PATTERN and
# (a relative path) whose working directory is in this test's (the other build's run of this
# test may be running beside it: scripts/test runs both at once).
ours() {
  local p
  case $1 in # a path in this test's directory is ours already
    "$work"/*) pgrep -f -- "$1" || true; return 0 ;;
  esac
  for p in $(pgrep -f -- "$1" || true); do
    case $(readlink "/proc/$p/cwd" 2> /dev/null) in
      "$work" | "$work"/*) echo "$p" ;;
    esac
  done
  return 0
}

# interrupted SIGNAL LOG PID PROGRAM: btc exited 130 and left nothing behind.
interrupted() {
  local sig=$1 log=$2 pid=$3 prog=$4 rc=0
  sleep 1 # well inside the phase: a child is running
  [ -n "$(ours "$prog")" ] || fail "no $prog running when the signal was sent" "$log"
  kill "-$sig" "$pid"
  wait "$pid" || rc=$?
  [ $rc -eq 130 ] || fail "SIG$sig: exit status $rc, expected 130" "$log"
  sleep 0.2
  if [ -n "$(ours "$prog")" ]; then ps -fp "$(ours "$prog" | tr '\n' ',')0"; fail "SIG$sig: a child outlived btc" "$log"; fi
  if ls "$work/cache" | grep -q '\.tmp\.'; then fail "SIG$sig: a temporary file is left in the cache"; fi
  [ ! -e "$work/report.json" ] || fail "SIG$sig: a report was written"
  grep -q "interrupted" "$log" || fail "SIG$sig: btc did not say it was interrupted" "$log"
}

# 1. The main job, in its tune phase: SIGINT, then SIGTERM.
for sig in INT TERM; do
  log=$work/job-$sig.log
  "$btc" "$app" --device host --run --table "$work/table.csv" -D n=2000000 \
    --tune-tasks 2000 --no-race -o "$work/out" --cache "$work/cache" \
    --report "$work/report.json" > "$log" 2>&1 &
  pid=$!
  wait_for "$log" "tune: round 1" $pid
  interrupted $sig "$log" $pid "$work/out/build/vecadd-pipeline"
  echo "ok: SIG$sig in the tune phase: exit 130, no child, no report"
done

# 2. btc profile, while the profiler measures.
log=$work/profile.log
(cd "$work" && exec "$btc" profile "$app" --device host -D n=2000000 --max-reps 100000 \
   --cache "$work/cache" > "$log" 2>&1) &
pid=$!
wait_for "$log" "every stage on every PU" $pid
# (btc names it by its relative path: its default project dir)
interrupted INT "$log" $pid "vecadd-host/build/vecadd-profiler"
if ls "$work/cache" | grep -q '\.csv$'; then fail "an interrupted profile left a table"; fi
echo "ok: SIGINT while profiling: exit 130, no child, no partial table"

# 3. SIGKILL to btc in the tune phase: btc cannot stop its child, so the
# child stops itself (PR_SET_PDEATHSIG: SIGTERM when btc dies), at once;
# it used to run on, orphaned (scripts/hostile, interrupts/job-kill9-tune).
log=$work/job-KILL.log
"$btc" "$app" --device host --run --table "$work/table.csv" -D n=2000000 \
  --tune-tasks 2000 --no-race -o "$work/out" --cache "$work/cache" > "$log" 2>&1 &
pid=$!
wait_for "$log" "tune: round 1" $pid
sleep 1
pgrep -f "$work/out/build/vecadd-pipeline" > /dev/null || fail "no program running when btc was killed" "$log"
kill -KILL $pid
wait $pid 2> /dev/null || true
pid=
for _ in $(seq 1 20); do
  pgrep -f "$work/out/build/vecadd-pipeline" > /dev/null || break
  sleep 0.1
done
if pgrep -fa "$work/out/build/vecadd-pipeline"; then
  for p in $(pgrep -f "$work/out/build/vecadd-pipeline"); do kill -KILL "$p" 2> /dev/null || true; done
  fail "SIGKILL: the program outlived btc by 2 s" "$log"
fi
echo "ok: SIGKILL in the tune phase: the program ended with btc"
