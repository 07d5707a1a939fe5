#!/usr/bin/env bash
# The generated program at its edges (examples/vecadd, CPU-only and, with a
# Vulkan device, CPU+Vulkan): SIGINT and SIGTERM in the middle of a long
# run stop it within seconds with exit 128 + signal, a message, no report
# and no trace, and no process left behind.
set -euo pipefail
btc=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
cpu=$("$btc" device host | awk '/name:/ {n=$3} /kind: cpu/ {print n; exit}')
gpu=$("$btc" device host | awk '/name:/ {n=$3} /kind: vulkan/ {print n; exit}')
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

build cpu --chunks "$cpu:0-2"
cpu_prog=$work/cpu/build/vecadd-pipeline
interrupt "$cpu_prog" INT 130
interrupt "$cpu_prog" TERM 143
if [ -n "$gpu" ]; then
  build vk --gpu vulkan --chunks "$cpu:0,$gpu:1-2"
  interrupt "$work/vk/build/vecadd-pipeline" INT 130
fi
echo "gen-cli: passed"
