#!/usr/bin/env bash
# The generated program and profiler under faults (issue 26, findings 2,
# 3 and 5 on their side; docs/runtime.md "Output files" and "Faults in
# kernels, and a stop that hangs"): --report, --trace, --failure and the
# profiler's -o never replace a FIFO or write through a link, and a full
# disk (EFBIG under RLIMIT_FSIZE) fails the profiler naming the table, with
# no 0-byte table left; SIGTERM/SIGINT end the program within
# BTRT_STOP_TIMEOUT_S (5 s; 1 s here through the environment) plus a margin even when a kernel loops or the
# input's open() blocks on a FIFO, naming what still runs; a kernel that
# segfaults, aborts, overflows its stack (named so, also on an OpenMP
# worker the kernel adds beyond its PU's team) or calls exit(0) or
# quick_exit() is named with its stage and PU on stderr and in the
# --failure JSON, the status non-zero, in the program and the profiler; a missing default input says which path was tried and how
# to give one. On a copy of examples/vecadd whose 'add' kernel misbehaves
# when VECADD_FAULT says so.
set -euo pipefail
btc=$1 src=$2 work=$3
. "$src/test/driver/lib.sh"
rm -rf "$work" && mkdir -p "$work"
cd "$work"
cpu=$(btc_test_host_pu cpu)

mkdir app && cp "$src"/examples/vecadd/* app/
cat > fault.h <<'C'
#include <omp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static int vecadd_deep(volatile char *up)
{
	volatile char pad[4096];
	pad[0] = up ? up[0] : 1;
	return vecadd_deep(pad) + pad[1];
}
/* VECADD_FAULT=hang|segv|abort|exit13|stack|quick|_exit|ompstack|ompwide: what the 'add' kernel does. */
static void vecadd_fault(void)
{
	static int calls;
	const char *f = getenv("VECADD_FAULT");
	calls++;
	if (!f)
		return;
	if (!strcmp(f, "hang"))
		while (getenv("VECADD_FAULT"))
			;
	if (!strcmp(f, "segv") && calls > 3)
		raise(SIGSEGV);
	if (!strcmp(f, "abort") && calls > 3)
		abort();
	if (!strcmp(f, "exit13") && calls == 13)
		exit(0);
	if (!strcmp(f, "stack") && calls > 3)
		vecadd_deep(NULL);
	if (!strcmp(f, "quick") && calls > 3)
		quick_exit(0);
	if (!strcmp(f, "_exit") && calls > 3)
		_exit(7);
	if (!strcmp(f, "ompstack") && calls > 3) {
		/* the overflow on an OpenMP worker of the dispatcher's team */
#pragma omp parallel num_threads(2)
		if (omp_get_thread_num() == 1)
			vecadd_deep(NULL);
	}
	if (!strcmp(f, "ompwide") && calls > 3) {
		/* ... on a worker beyond the team: the dispatcher sized its
		 * team to the PU's cores (omp_get_max_threads() here), the
		 * kernel asks for 2 more, libgomp starts them now */
		int team = omp_get_max_threads();
#pragma omp parallel num_threads(team + 2)
		if (omp_get_thread_num() == team + 1)
			vecadd_deep(NULL);
	}
}
C
mv fault.h app/
sed -i '1i #include "fault.h"' app/vecadd.c
sed -i '/^int vecadd_add_cpu/,/^}/ s|^\tint64_t n = t->params->n;|&\n\tvecadd_fault();|' app/vecadd.c
# VECADD_OPEN=1: the io opens its input path (blocks on a FIFO, fails when missing)
sed -i 's|^\t(void)path;|\tif (getenv("VECADD_OPEN")) {\n\t\tFILE *in = fopen(path, "r");\n\t\tif (!in) {\n\t\t\tsnprintf(err, len, "cannot open %s", path);\n\t\t\treturn NULL;\n\t\t}\n\t\tfclose(in);\n\t}|' app/vecadd.c
[ "$(grep -c vecadd_fault app/vecadd.c)" = 1 ] && grep -q VECADD_OPEN app/vecadd.c ||
  fail "the faults were not planted"
"$btc" gen app/vecadd.yaml --device host --chunks "$cpu:0-2" -o proj > gen.log 2>&1 ||
  fail "btc gen: exit status $?" gen.log
# the default input: a path that exists only "on the generating machine"
(cd proj && meson setup b -Dinput=gone/frames.dat > ../setup.log 2>&1 &&
  nice ninja -C b > ../build.log 2>&1) || fail "building the project" build.log
prog=proj/b/vecadd-pipeline profiler=proj/b/vecadd-profiler
$prog --tasks 4 --quiet > ok.log 2>&1 || fail "a plain run: exit status $?" ok.log

# st NAME CMD...: runs CMD, output to NAME.log, prints its exit status
st() { local n=$1 rc=0; shift; "$@" > "$n.log" 2>&1 || rc=$?; echo $rc; }
expect() { # NAME STATUS PATTERN...
  local n=$1 want=$2 got
  got=$(cat "$n.status")
  [ "$got" = "$want" ] || fail "$n: exit status $got, expected $want" "$n.log"
  shift 2
  for p in "$@"; do grep -q -- "$p" "$n.log" || fail "$n: no '$p'" "$n.log"; done
  echo "ok: $n: exit $got"
}

# --- outputs: a FIFO, a link (its target kept), a failed run's --report link
mkfifo fifo && echo keep > target && ln -s target link
st report-fifo timeout 20 $prog --tasks 4 --quiet --report fifo > report-fifo.status
expect report-fifo 2 '--report fifo is a FIFO'
st trace-link $prog --tasks 4 --quiet --trace link > trace-link.status
expect trace-link 2 '--trace link is a symbolic link'
VECADD_FAULT=segv st report-link $prog --tasks 20 --quiet --report link > report-link.status
expect report-link 2 '--report link is a symbolic link'
[ "$(cat target)" = keep ] || fail "written through the --report link"
[ -p fifo ] && [ -L link ] || fail "the FIFO or the link was replaced"
ls | grep -q '\.tmp\.' && fail "temporary files left: $(ls | grep '\.tmp\.')"

# --- a kernel that segfaults, aborts or calls exit(0): stage, PU, status
for f in segv abort exit13 stack quick ompstack ompwide; do
  rm -f $f.json
  VECADD_FAULT=$f st $f $prog --tasks 20 --quiet --failure $f.json --report $f-report.json > $f.status
  [ ! -e $f-report.json ] || fail "$f: a report of a run that did not finish" $f.log
  json $f.json 'r["stage"], r["stage_name"], r["pu"]' > $f.where
  [ "$(cat $f.where)" = "(1, 'add', '$cpu')" ] || fail "$f: failure JSON says $(cat $f.where)" $f.log
done
expect segv 139 "stage 1 'add' on PU '$cpu' (task [0-9]*) crashed with SIGSEGV"
[ "$(json segv.json 'r["signal"]')" = 11 ] || fail "segv: no signal in the failure JSON"
expect abort 134 "stage 1 'add' on PU '$cpu' (task [0-9]*) crashed with SIGABRT"
expect exit13 1 "stage 1 'add' on PU '$cpu' (task 12) called exit(0) during the run"
[ "$(json exit13.json 'r["exit_status"]')" = 0 ] || fail "exit13: no exit status in the failure JSON"
grep -q '^verified' exit13.log && fail "exit13: a summary of a run that did not finish" exit13.log
# a stack overflow: the handler runs on the thread's alternate stack, and names it
expect stack 139 "stage 1 'add' on PU '$cpu' (task [0-9]*) crashed with SIGSEGV (stack overflow)"
expect quick 1 "stage 1 'add' on PU '$cpu' (task [0-9]*) called quick_exit() during the run"
# ... also on an OpenMP worker thread (needs 2 cores: the team's second thread)
expect ompstack 139 "stage 1 'add' on PU '$cpu' (task [0-9]*) crashed with SIGSEGV (stack overflow)"
# ... and on a worker the kernel adds beyond the team (more threads than
# the PU's cores): started by a prepared thread, it has a stack of its own
expect ompwide 139 "stage 1 'add' on PU '$cpu' (task [0-9]*) crashed with SIGSEGV (stack overflow)"

# --- the profiler: a crash named; a full disk is no exit 0, no 0-byte table
VECADD_FAULT=segv st prof-segv $profiler --min-reps 3 --max-reps 5 -o prof-segv.csv > prof-segv.status
expect prof-segv 139 "stage [0-9] 'add' on PU '[^']*' (task [0-9]*) crashed with SIGSEGV"
[ ! -e prof-segv.csv ] || fail "prof-segv: a table of a profile that crashed"
VECADD_FAULT=stack st prof-stack $profiler --min-reps 3 --max-reps 5 -o prof-stack.csv > prof-stack.status
expect prof-stack 139 "stage [0-9] 'add' on PU '[^']*' (task [0-9]*) crashed with SIGSEGV (stack overflow)"
echo old > full.csv
# (the limit on the profiler alone: its messages reach full.log through a pipe)
st full bash -c "(trap '' XFSZ; ulimit -f 0; exec $profiler --quiet --min-reps 3 --max-reps 5 -o full.csv) 2>&1 | cat; exit \${PIPESTATUS[0]}" > full.status
expect full 1 "cannot write full.csv: $(python3 -c 'import os; print(os.strerror(27))')"
[ "$(cat full.csv)" = old ] || fail "full: the old table was not kept" full.log
ls | grep -q 'full.csv.tmp' && fail "full: temporary table left"
# ... and with SIGXFSZ at its default (it ended the program unexplained)
st efbig bash -c "(ulimit -f 1; exec $prog --tasks 200 --quiet --trace big.json) 2>&1 | cat; exit \${PIPESTATUS[0]}" > efbig.status
expect efbig 1 "big.json.*$(python3 -c 'import os; print(os.strerror(27))')"
[ ! -e big.json ] || fail "efbig: a cut trace left"

# --- bounded stops: a kernel that loops, an input open() on a FIFO
# The guard's bound is BTRT_STOP_TIMEOUT_S=1 s here (the default 5 s made
# each of these wait 5 s).
stop() { # NAME SIGNAL STATUS ENV... -- ARGS...: signal after 1 s, must end in 1 s + 14 s margin
  local n=$1 sig=$2 want=$3 t0 pid rc=0
  shift 3
  t0=$(date +%s)
  # a background job of a script starts with SIGINT ignored: reset it
  python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp("env", ["env"] + sys.argv[1:])' \
    BTRT_STOP_TIMEOUT_S=1 "$@" > "$n.log" 2>&1 & pid=$!
  sleep 1
  # on a loaded machine: until the run's threads exist (the guard is
  # installed before them), 10 s at most
  for i in $(seq 100); do [ "$(ls /proc/$pid/task 2> /dev/null | wc -l)" -ge 2 ] && break; sleep 0.1; done
  kill -"$sig" $pid
  for i in $(seq 150); do kill -0 $pid 2> /dev/null || break; sleep 0.1; done
  if kill -0 $pid 2> /dev/null; then kill -KILL $pid; wait $pid || true; fail "$n: still running 16 s after the signal" "$n.log"; fi
  wait $pid || rc=$?
  echo $rc > "$n.status"
  local took=$(( $(date +%s) - t0 ))
  expect "$n" "$want" "did not complete within 1 s; still running: "
}
stop hang-term TERM 143 VECADD_FAULT=hang $prog --tasks 20 --quiet --failure hang.json
grep -q "still running: stage 1 'add' on PU '$cpu'" hang-term.log || fail "hang: the stage not named" hang-term.log
[ "$(json hang.json 'r["kind"], r["stage_name"]')" = "('BTRT_E_INTR', 'add')" ] ||
  fail "hang: failure JSON $(cat hang.json)"
stop hang-int INT 130 VECADD_FAULT=hang $prog --tasks 20 --quiet
stop open-fifo INT 130 VECADD_OPEN=1 $prog --tasks 4 --quiet --input fifo
grep -q "still running: the open of the input fifo" open-fifo.log || fail "open: not named" open-fifo.log

# --- a missing default input: which one, and how to give another
VECADD_OPEN=1 st input $prog --tasks 4 --quiet > input.status
expect input 1 "the input tried was .*proj/gone/frames.dat, this build's default" "give one with --input PATH" "meson configure BUILDDIR -Dinput=PATH"
VECADD_OPEN=1 st input-given $prog --tasks 4 --quiet --input nosuch > input-given.status
expect input-given 1 "the input tried was nosuch (--input)"
# --- btc names the kernel: the profiler's and the tuner's failure JSON
VECADD_FAULT=segv st btc-profile "$btc" profile app/vecadd.yaml --device host --cache cache \
  --max-reps 10 -o bprof > btc-profile.status
expect btc-profile 1 "the profiler failed (.*): stage [0-9] 'add' on PU '[^']*' (task [0-9]*) crashed with SIGSEGV"
host_table "$btc" app/vecadd.yaml table.csv
VECADD_FAULT=segv st btc-tune "$btc" app/vecadd.yaml --device host --run --table table.csv \
  -o btune --tune-budget 1 > btc-tune.status
expect btc-tune 1 "schedule [0-9]* (.*), stage 'add' on $cpu, tuning: stage 1 'add' on PU '$cpu' (task [0-9]*) crashed with SIGSEGV (signal 11)"
grep -q "stage 'square'" btc-tune.log && fail "btc-tune: 'square' blamed" btc-tune.log
# a kernel's _exit() runs no handler of the program's: btc names it from
# the run status the program keeps in the memfd btc passed (BTRT_STATUS_FD)
VECADD_FAULT=_exit st btc-profile-exit "$btc" profile app/vecadd.yaml --device host --cache cache2 \
  --max-reps 10 -o bprof2 > btc-profile-exit.status
expect btc-profile-exit 1 "the profiler failed (exited with status 7): stage [0-9] 'add' on PU '[^']*' (task [0-9]*) ended the process with _exit(7) or exit_group(7) during the profile, after [0-9]* tasks\{0,1\}"
[ -z "$(ls cache2 | grep -v '^\.btc\.lock$')" ] || fail "btc-profile-exit: a table of a profile that did not finish: $(ls cache2)"
VECADD_FAULT=_exit st btc-tune-exit "$btc" app/vecadd.yaml --device host --run --table table.csv \
  -o btune2 --tune-budget 5 > btc-tune-exit.status
expect btc-tune-exit 1 "schedule [0-9]* (.*), tuning: stage 1 'add' on PU '$cpu' (task [0-9]*) ended the process with _exit(7) or exit_group(7) during the run, after [0-9]* tasks\{0,1\}"
echo "ok: program-faults"
