#!/usr/bin/env bash
# The generated program at its edges (examples/vecadd, CPU-only and, with a
# Vulkan device, CPU+Vulkan): its integer options are range-checked and a
# pool that cannot fit in memory is refused (exit 2 with a message, before
# anything is allocated); SIGINT and SIGTERM in the middle of a long run
# stop it within seconds with exit 128 + signal, a message, no report and
# no trace, and no process left behind.
set -euo pipefail
btc=$1 src=$2 work=$3
. "$src/test/common/skip.sh" # btc_test_host_pu
rm -rf "$work" && mkdir -p "$work"
cpu=$(btc_test_host_pu cpu)
gpu=$(btc_test_host_pu vulkan)
build() {
  local dir=$1
  shift
  "$btc" gen "$src/examples/vecadd/vecadd.yaml" --device host "$@" -o "$work/$dir" --build \
    > "$work/$dir.log" 2>&1 || { cat "$work/$dir.log"; exit 1; }
}

# interrupt PROG SIGNAL EXIT [ARGS]: signal a run of 10^9 tasks once it runs.
interrupt() {
  local prog=$1 sig=$2 want=$3
  shift 3
  local out=$work/$sig.out err=$work/$sig.err
  rm -f "$work"/report.json* "$work"/trace.json*
  # A script's background job starts with SIGINT ignored: restore it.
  BTRT_NO_PIN=1 env --default-signal=INT "$prog" --tasks 1000000000 \
    --report "$work/report.json" --trace "$work/trace.json" "$@" > "$out" 2> "$err" &
  local pid=$! i rc=0
  for ((i = 0; i < 600; i++)); do # its first line: the run starts
    grep -q "tasks, pool" "$out" && break
    sleep 0.05
  done
  sleep 0.5
  kill -s "$sig" "$pid"
  for ((i = 0; i < 400; i++)); do # 20 s at most
    kill -0 "$pid" 2> /dev/null || break
    sleep 0.05
  done
  if kill -0 "$pid" 2> /dev/null; then
    echo "FAIL: $prog still runs 20 s after SIG$sig"
    kill -KILL "$pid"
    exit 1
  fi
  wait "$pid" || rc=$?
  if [ "$rc" != "$want" ]; then
    echo "FAIL: SIG$sig: exit status $rc, expected $want"
    cat "$err"
    exit 1
  fi
  if ls "$work"/report.json* "$work"/trace.json* 2> /dev/null; then
    echo "FAIL: SIG$sig left a report or a trace"
    exit 1
  fi
  if [ -e "/proc/$pid" ] || pgrep -f "^$prog" > /dev/null; then
    echo "FAIL: a process of $prog is left after SIG$sig"
    exit 1
  fi
  # The message shows the program stopped itself (a process the signal
  # killed gets the same status from wait).
  if ! grep -q "SIG$sig: stopped after [0-9]* checked tasks; no report or trace written" "$err"; then
    echo "FAIL: SIG$sig: no message that the run stopped"
    cat "$err"
    exit 1
  fi
  if grep -q "^verified" "$out"; then
    echo "FAIL: SIG$sig: a result was printed"
    exit 1
  fi
  echo "SIG$sig: exit $rc: $(cat "$err")"
}

# refused MESSAGE ARGS: exit status 2, MESSAGE on stderr, nothing run.
refused() {
  local want=$1 rc=0
  shift
  # 2 GB of address space at most: a pool that got allocated would fail
  # with another status.
  (ulimit -v 2097152 && "$cpu_prog" --quiet "$@") > "$work/refused.out" 2> "$work/refused.err" || rc=$?
  if [ "$rc" != 2 ] || ! grep -q -- "$want" "$work/refused.err" || [ -s "$work/refused.out" ]; then
    echo "FAIL: $*: exit status $rc, expected 2 and '$want'"
    cat "$work/refused.out" "$work/refused.err"
    exit 1
  fi
  echo "refused $*: $(cat "$work/refused.err")"
}

build cpu --chunks "$cpu:0-2"
cpu_prog=$work/cpu/build/vecadd-pipeline
n=$("$cpu_prog" --list | tail -n +2 | wc -l)
refused "out of range (1..4294967295)" --tasks 20 --pool 4294967297 # was silently 1
refused "out of range (1..4294967295)" --tasks 20 --pool 4294967296
refused "out of range (1..4294967295)" --pool 0
refused "not a decimal number" --pool -1
refused "not a decimal number" --pool 12x
refused "not a decimal number" --pool " 5"
refused "not a decimal number" --pool ""
refused "more than --tasks (64)" --pool 100000 # allocated 10 GB before
refused "MiB of memory" --tasks 10000000000 --pool 4294967295
refused "out of range (1..9223372036854775807)" --tasks 99999999999999999999
refused "out of range (1..9223372036854775807)" --tasks 0
refused "out of range (0..$((n - 1)))" --schedule "$n"
refused "out of range (0..$((n - 1)))" --schedule 4294967296
refused "must be less than --tasks (10)" --tasks 10 --warmup 10
refused "not a decimal number" --warmup 1e3
out=$(BTRT_NO_PIN=1 "$cpu_prog" --quiet --tasks 20 --warmup 19 --pool 20 --schedule $((n - 1)))
# issue 25: a warm-up task per TaskObject (20), the one more streamed so
# that 20 - 19 is measured (was "verified 20 tasks", 1 slot's first use
# in the window)
grep -q "^verified 21 tasks (20 warm-up, 19 asked, one per TaskObject + 1 measured)" <<< "$out"
echo "accepted --tasks 20 --warmup 19 --pool 20 --schedule $((n - 1)): $out"
# The default pool (issue 25, docs/runtime.md "The pool"): one TaskObject
# per position that holds a task (each loader, chunk entry and check
# worker) and BTRT_POOL_SLACK (3) more: the report's pool, with the
# run's io farms as the report gives them; --pool still overrides it.
for io in "1 1" "1 2" "2 3"; do
  read -r kl kc <<< "$io"
  BTRT_NO_PIN=1 "$cpu_prog" --quiet --tasks 40 --load-threads "$kl" --check-threads "$kc" \
    --report "$work/pool.json" > /dev/null
  python3 - "$work/pool.json" "$kl" "$kc" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
kl, kc = r["io"]["load_threads"], r["io"]["check_threads"]
assert (kl, kc) == (int(sys.argv[2]), int(sys.argv[3])), (kl, kc, sys.argv[2:])
entries = len(r["schedule"]["chunks"])
want = kl + entries + kc + 3
assert r["pool"] == want, f"pool {r['pool']}, want {kl} loaders + {entries} chunks + {kc} checkers + 3"
print(f"default pool: {kl} loaders + {entries} chunks + {kc} checkers + 3 = {r['pool']}")
PY
done
# The steady-state window starts once every TaskObject carried a task
# (issue 25, docs/runtime.md "The warm-up"): the report's warmup is at
# least the pool, the one asked for is warmup_requested, and the tasks
# asked minus the warm-up asked are measured, the run streaming the extra
# warm-up tasks besides. The tuner's runs (68 tasks, 4 warm-up), the
# default pool (more than 4 here) and --pool 2 (within the warm-up).
check_warmup() {
  python3 - "$work/warm.json" "$@" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
tasks, warmup, pool = map(int, sys.argv[2:5])
assert r["pool"] == pool, (r["pool"], pool)
assert r["warmup_requested"] == warmup, r["warmup_requested"]
assert r["warmup"] == max(warmup, pool), f"warmup {r['warmup']}: not max({warmup}, pool {pool})"
assert r["measured_tasks"] == tasks - warmup, f"measured {r['measured_tasks']}, asked {tasks - warmup}"
assert r["tasks"] == tasks + r["warmup"] - warmup, f"tasks {r['tasks']}"
assert r["tasks"] - r["warmup"] == r["measured_tasks"]
print(f"--tasks {tasks} --warmup {warmup}, pool {pool}: warm-up {r['warmup']}, "
      f"{r['tasks']} tasks, {r['measured_tasks']} measured")
PY
}
BTRT_NO_PIN=1 "$cpu_prog" --quiet --tasks 68 --warmup 4 --report "$work/warm.json" > "$work/warm.out"
pool=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["pool"])' "$work/warm.json")
[ "$pool" -gt 4 ] || { echo "FAIL: default pool $pool, expected more than 4"; exit 1; }
check_warmup 68 4 "$pool"
grep -q "^verified $((64 + pool)) tasks ($pool warm-up, 4 asked, one per TaskObject + 64 measured)" \
  "$work/warm.out" || { echo "FAIL: summary"; cat "$work/warm.out"; exit 1; }
BTRT_NO_PIN=1 "$cpu_prog" --quiet --tasks 68 --warmup 4 --pool 2 --report "$work/warm.json" \
  > "$work/warm.out"
check_warmup 68 4 2
grep -q "^verified 68 tasks (4 warm-up + 64 measured)" "$work/warm.out"
BTRT_NO_PIN=1 "$cpu_prog" --quiet --tasks 30 --warmup 0 --pool 5 --report "$work/warm.json" \
  > /dev/null
check_warmup 30 0 5
BTRT_NO_PIN=1 "$cpu_prog" --quiet --tasks 40 --pool 3 --check-threads 2 --report "$work/pool.json" \
  > /dev/null
python3 -c 'import json, sys; p = json.load(open(sys.argv[1]))["pool"]; assert p == 3, p' \
  "$work/pool.json"
interrupt "$cpu_prog" INT 130
interrupt "$cpu_prog" TERM 143
if [ -n "$gpu" ]; then
  build vk --gpu vulkan --chunks "$cpu:0,$gpu:1-2"
  interrupt "$work/vk/build/vecadd-pipeline" INT 130
fi
echo "gen-cli: passed"
