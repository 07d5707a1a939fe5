#!/usr/bin/env bash
# The command line's own tests (after libxkbcommon's
# test/tool-option-parsing.py): run build/btc/btc with good and bad options
# and check the exit status (0 ok, 1 input error, 2 usage error) and the
# message. Usage: cli-options.sh BTC SOURCE_ROOT WORK_DIR
set -uo pipefail
btc=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
. "$src/test/cli/lib.sh"
cd "$src" || exit 1

app=apps/octree.yaml
dev=pixel7a
table=data/profiles/pixel7a/octree/interference.csv
vecadd=examples/vecadd/vecadd.yaml
testbox=test/gen/data/testbox.yaml
printf 'app: [unclosed\n' > "$work/bad.yaml"

# lacks PATTERN ARGS...: btc ARGS exits 0 and its output lacks PATTERN.
lacks() {
	local pat=$1 out rc
	shift
	n=$((n + 1))
	out=$("$btc" "$@" 2>&1)
	rc=$?
	if [ "$rc" != 0 ] || grep -qF -- "$pat" <<<"$out"; then
		echo "FAIL $n: btc $* -> exit $rc, should not mention: $pat"
		failed=$((failed + 1))
	fi
}

# ---- every integer option: bad value, out of range, overflow -> 2 -------
expect 2 "btc: --top must be 1..1000, not 'x'" schedule $app --device $dev --table $table --top x
expect 2 "btc: --top must be 1..1000, not '0'" gen $app --device $dev --top 0
expect 2 "btc: --top must be 1..1000, not '1001'" schedule $app --device $dev --table $table --top 1001
expect 2 "btc: --top must be 1..1000, not '1001'" gen $app --device $dev --top 1001
expect 2 "btc: --top must be 1..1000, not '99999999999999999999'" gen $app --device $dev --top 99999999999999999999
expect 2 "btc: --top must be 1..1000, not '5x'" $app --device $dev --top 5x
expect 2 "btc: --top must be 1..1000, not '+5'" gen $app --device $dev --top +5
expect 2 "btc: --cpu-groups must be 1..64, not ' 2'" gen $app --device $dev --cpu-groups " 2"
expect 2 "btc: --tune-tasks must be 2..1000000, not 'x'" tune $app --device host --tune-tasks x
expect 2 "btc: --tasks must be 2..1000000, not '1'" tune $app --device host --tasks 1
expect 2 "btc: --max-reps must be 2..1000000, not 'abc'" tune $app --device host --max-reps abc
expect 2 "btc: --max-reps must be 2..1000000, not '0'" profile $app --device host --max-reps 0
expect 2 "btc: --seed must be 0..4294967295, not '-1'" tune $app --device host --seed -1
expect 2 "btc: --seed must be 0..4294967295, not '4294967296'" tune $app --device host --seed 4294967296
expect 2 "btc: --tune-budget must be 1..86400, not '0'" tune $app --device host --tune-budget 0
expect 2 "btc: --tune-budget must be 1..86400, not 'x'" $app --device host --run --tune-budget x
# --min-rounds N: 1..30 (the round limit), the single-app job and the
# several-apps job alike; only the commands that tune take it
expect 2 "btc: --min-rounds must be 1..30, not '0'" tune $app --device host --min-rounds 0
expect 2 "btc: --min-rounds must be 1..30, not '31'" $app --device host --run --min-rounds 31
expect 2 "btc: --min-rounds must be 1..30, not 'x'" tune $app --device host --min-rounds x
expect 2 "btc: --min-rounds must be 1..30, not '-9'" $app apps/alexnet-dense.yaml --device host --run --min-rounds -9
expect 2 "btc: --min-rounds needs a value" tune $app --device host --min-rounds
expect 2 "btc: --min-rounds is not an option of 'btc gen'" gen $app --device $dev --min-rounds 9
expect 2 "btc: --min-rounds is not an option of 'btc schedule'" schedule $app --device $dev --table $table --min-rounds 9
# --warmup-s S: seconds 0..60, the several-apps job's warm-up by time
expect 2 "btc: --warmup-s must be a decimal number in 0..60, not '-1'" tune $app --device host --warmup-s -1
expect 2 "btc: --warmup-s must be a decimal number in 0..60, not '61'" $app --device host --run --warmup-s 61
expect 2 "btc: --warmup-s must be a decimal number in 0..60, not 'x'" tune $app --device host --warmup-s x
expect 2 "btc: --warmup-s is not an option of 'btc gen'" gen $app --device $dev --warmup-s 1
# --speedup-precision R: 0..1, the final head to head's precision
expect 2 "btc: --speedup-precision must be a decimal number in 0..1, not '1.5'" tune $app --device host --speedup-precision 1.5
expect 2 "btc: --speedup-precision must be a decimal number in 0..1, not 'x'" $app --device host --run --speedup-precision x
expect 2 "btc: --speedup-precision is not an option of 'btc gen'" gen $app --device $dev --speedup-precision 0.1
expect 2 "btc: --cpu-groups must be 1..64, not '0'" gen $app --device $dev --cpu-groups 0
expect 2 "btc: --cpu-groups must be 1..64, not '65'" device host --cpu-groups 65
expect 2 "btc: --min-util must be 0..100, not '101'" schedule $app --device $dev --table $table --min-util 101
expect 2 "btc: --max-chunks must be 1..32, not '0'" schedule $app --device $dev --table $table --max-chunks 0
expect 2 "btc: --time-budget must be 1..2147483647, not '0'" schedule $app --device $dev --table $table --time-budget 0
expect 2 "btc: --tasks must be 2..1000000, not ''" $app --device host --run --tasks=
expect 2 "btc: --run-timeout-factor must be a decimal number in 0..1000000, not 'x'" tune $app --device host --run-timeout-factor x
expect 2 "btc: --run-timeout-factor must be a decimal number in 0..1000000, not '0x10'" profile $app --device host --run-timeout-factor 0x10
expect 2 "btc: --run-timeout-factor must be a decimal number in 0..1000000, not '-1'" $app --device host --run --run-timeout-factor -1
expect 2 "btc: --run-timeout-factor must be a decimal number in 0..1000000, not 'inf'" tune $app --device host --run-timeout-factor inf

# ---- every enum option ---------------------------------------------------
expect 2 "btc: --objective must be bt, gapness, latency, maxmin, rates or sum, not 'foo'" gen $app --device $dev --objective foo
expect 2 "btc: --objective must be bt, gapness, latency, maxmin, rates or sum, not 'foo'" schedule $app --device $dev --table $table --objective foo
expect 2 "btc: --objective must be bt, gapness, latency, maxmin, rates or sum, not 'foo'" tune $app --device host --objective foo
expect 2 "btc: --mode must be isolated, interference or placed, not 'foo'" check $app --mode foo
expect 2 "btc: --format must be text or json, not 'xml'" schedule $app --device $dev --table $table --format xml
expect 2 "btc: --solver must be z3, exhaustive, bb or z3-only, not 'cplex'" schedule $app --device $dev --table $table --solver cplex
expect 2 "btc: --gpu must be cuda or vulkan, not 'opencl'" gen $app --device $dev --gpu opencl

# ---- -D, values, flags -----------------------------------------------------
expect 2 "btc: -D expects NAME=VALUE, not 'max_points'" check $app -D max_points
expect 2 "btc: -D max_points: 'abc' is not an integer" check $app -D max_points=abc
expect 2 "btc: -D max_points: '99999999999999999999' is not an integer" header $app -D max_points=99999999999999999999
expect 2 "btc: --top needs a value" schedule $app --device $dev --table $table --top
expect 2 "btc: --build takes no value" gen $app --device $dev --build=yes
expect 2 "btc: at most 32 --chunks" gen $vecadd --device $testbox $(for i in $(seq 33); do echo --chunks big:0-2; done)

# ---- unknown, misplaced and conflicting options -------------------------
expect 2 "btc: unknown option '--bogus' (see btc gen --help)" gen $app --device $dev --bogus
expect 2 "btc: unknown option '-x'" schedule $app --device $dev --table $table -x
expect 2 "btc: --glsl is not an option of 'btc schedule'" schedule $app --device $dev --table $table --glsl
expect 2 "btc: --device is not an option of 'btc header'" header $app --device $dev
expect 2 "btc: --build is not an option of 'btc tune'" $app --device host --run --build
expect 2 "btc: --reprofile is not an option of 'btc gen'" $app --device $dev --reprofile
expect 2 "btc: --force is not an option of 'btc schedule'" schedule $app --device $dev --table $table --force
expect 2 "btc: --run-timeout-factor is not an option of 'btc gen'" gen $app --device $dev --run-timeout-factor 2
expect 2 "btc: --table and --reprofile cannot be given together" tune $app --device host --table $table --reprofile
expect 2 "btc: --chunks and --top cannot be given together" gen $vecadd --device $testbox --chunks big:0-2 --top 3
expect 2 "btc: --measurements and --run cannot be given together" $app --device $dev --table $table --run --measurements x.csv
expect 2 "btc: --measurements needs --table" tune $app --device $dev --measurements x.csv
expect 1 "x.csv: error: cannot read" tune $app --device $dev --table $table --measurements "$work/x.csv"
expect 2 "btc: unknown command 'frobnicate'" frobnicate
expect 2 "usage: btc <command>"

# ---- missing arguments and required options -------------------------------
expect 2 "btc: missing argument" gen --device $dev
expect 2 "btc: too many arguments" devices extra
expect 2 "btc: too many arguments" check $app $app
expect 2 "btc: 'btc schedule' needs --table" schedule $app --device $dev
expect 2 "btc: 'btc gen' needs --device" gen $app
expect 2 "btc: 'btc profile' needs --device" profile $app
expect 2 "btc: --table needs --device" check $app --table $table
expect 2 "btc: missing argument" report

# ---- --help: exit 0, exactly the command's options ------------------------
expect 0 "--cache DIR" --help
expect 0 "commands:" --help
expect 0 "btc " --version
expect 0 "--mode isolated|interference" check --help
expect 0 "-h, --help" devices --help
expect 0 "--cpu-groups N" device --help
expect 0 "--glsl" header --help
expect 0 "--chunks SPEC" gen --help
expect 0 "--pin STAGE=PU" schedule --help
expect 0 "-D NAME=VALUE" schedule --help
expect 0 "--cpu-groups N" schedule --help
expect 0 "--cache DIR" profile --help
expect 0 "--keep-going" tune --help
expect 0 "--adapt" tune --help
expect 0 "--seed N" tune --help
expect 0 "--cache DIR" tune --help
expect 0 "--candidates FILE" report --help
expect 0 "--fit-csv FILE" report --help
expect 0 "--tune-budget SECONDS" tune --help
expect 0 "--min-rounds N" tune --help
expect 0 "--min-rounds N" $app --run --help
expect 0 "--measurements FILE" tune --help
expect 0 "usage: btc tune" $app --run --help
expect 0 "usage: btc gen" gen --help --bogus
lacks "--glsl" schedule --help
lacks "--device" header --help
lacks "--reprofile" gen --help
lacks "--keep-going" gen --help
lacks "--adapt" gen --help
lacks "--table" profile --help
lacks "--build" tune --help

# ---- exit 0 and 1 ----------------------------------------------------------
expect 0 "ok" check $app
expect 0 "ok" check -- $app
expect 0 "ok" check $app --device $dev --mode=isolated --table data/profiles/pixel7a/octree/isolated.csv
expect 1 "error" check "$work/missing.yaml"
expect 1 "error" check "$work/bad.yaml"
expect 1 "the app has no param 'nope'" check $app -D nope=1
expect 1 "" device no-such-device
expect 1 "error" schedule $app --device $dev --table "$work/missing.csv"

# several apps (issue 27): docs/app-format.md "Workloads"
tables=data/profiles/pixel7a
expect 0 "joint gain over naive co-location" schedule $app apps/alexnet-dense.yaml --device $dev --tables $tables --top 2
expect 0 '"gain_over_naive"' schedule $app apps/alexnet-dense.yaml --device $dev --tables $tables --top 2 --format json --no-time
expect 0 "octree#1" schedule $app apps/alexnet-dense.yaml --device jetson-orin-nano --tables data/profiles/jetson-orin-nano --streams octree=2 --weight alexnet-dense=2 --top 1
expect 0 "octree#0" schedule $app --device $dev --table $table --streams octree=2 --top 1
expect 0 "weighted total normalised throughput" schedule $app apps/alexnet-dense.yaml --device jetson-orin-nano --tables data/profiles/jetson-orin-nano --objective sum --top 1
expect 0 "the target rates cannot all be met" schedule $app apps/alexnet-dense.yaml --device $dev --tables $tables --objective rates --rate octree=1000 --rate alexnet-dense=500 --top 1
expect 0 "every target rate met" schedule $app apps/alexnet-dense.yaml --device $dev --tables $tables --objective rates --rate octree=10 --rate alexnet-dense=10 --top 1
expect 1 "apps/octree.yaml:1:1: error: objective rates: app 'octree' has no target rate" schedule $app apps/alexnet-dense.yaml --device $dev --tables $tables --objective rates --rate alexnet-dense=10
expect 2 "btc: --solver bb applies to a workload (several apps or streams), not to one app" schedule $app --device $dev --table $table --solver bb
# --same-pu: none by default (factor 1), probe: the tables' @share rows
expect 0 '"same_pu":"none","same_pu_factor":null' schedule $app apps/alexnet-dense.yaml --device $dev --tables $tables --top 1 --format json --no-time
expect 0 '"same_pu":"probe","same_pu_factor":null' schedule $app apps/alexnet-dense.yaml --device $dev --tables $tables --top 1 --format json --no-time --same-pu probe
expect 0 "same-PU factor none (--same-pu none: factor 1)" schedule $app apps/alexnet-dense.yaml --device $dev --tables $tables --top 1
expect 2 "btc: --same-pu must be none or probe, not 'yes'" schedule $app apps/alexnet-dense.yaml --device $dev --tables $tables --same-pu yes
expect 2 "btc: --same-pu applies to several apps (btc profile A.yaml B.yaml ...), not to one" profile $app --device host --same-pu probe
# the three joint solvers rank the same K candidates (n_evaluated differs)
expect 2 "btc: --solver z3-only applies to a workload (several apps or streams), not to one app" schedule $app --device $dev --table $table --solver z3-only
for solver in z3 bb exhaustive z3-only; do
	"$btc" schedule $app apps/alexnet-dense.yaml --device $dev --tables $tables --top 6 --format json --no-time --solver $solver 2>&1 | sed 's/"n_evaluated": *[0-9]*//' > "$work/joint-$solver.json"
done
for solver in bb exhaustive z3-only; do
	n=$((n + 1))
	if ! cmp -s "$work/joint-z3.json" "$work/joint-$solver.json" || ! grep -q '"candidates"' "$work/joint-z3.json"; then
		echo "FAIL $n: btc schedule A B --solver $solver ranks unlike --solver z3"
		failed=$((failed + 1))
	fi
done
expect 1 "error: two apps named 'octree' in the workload" schedule $app $app --device $dev --tables $tables
expect 1 "error: --streams 'nope=2': no app of that name in the workload" schedule $app apps/alexnet-dense.yaml --device $dev --tables $tables --streams nope=2
expect 1 "error: no profiling table for app 'octree'" schedule $app apps/alexnet-dense.yaml --device $dev
# btc profile over several apps: the co-run slowdowns (test/driver/corun.sh measures them)
expect 2 "btc: -o applies to one app, not to several (btc profile A.yaml B.yaml ...)" profile $app apps/alexnet-dense.yaml --device host -o "$work/two.csv"
expect 2 "btc: -D applies to one app, not to several" profile $app apps/alexnet-dense.yaml --device host -D n=3
expect 1 "apps/octree.yaml:5:6: error: two apps named 'octree' (the other: apps/octree.yaml)" profile $app $app --device host --cache "$work/cache-two"
expect 1 "apps/octree.yaml:47:5: error: stage 'morton' of app 'octree' has no kernel for any PU of device 'pixel7a' that the workload may use" schedule $app apps/alexnet-dense.yaml --device $dev --tables $tables --forbid little --forbid medium --forbid big --forbid gpu
expect 2 "btc: --objective maxmin applies to a workload of several apps (btc schedule)" gen $app --device $dev --objective maxmin
expect 2 "btc: missing argument" schedule --device $dev
expect 2 "btc: --pin applies to one app, not to a workload" schedule $app apps/alexnet-dense.yaml --device $dev --tables $tables --pin morton=big
# farms and core splits widen the joint space as for one app (issue 27)
expect 0 "space: the larger one (farms; the exact searches answer" schedule $app apps/alexnet-dense.yaml --device $dev --tables $tables --farms --top 2
expect 1 "the Z3 search covers the paper's space only" schedule $app apps/alexnet-dense.yaml --device $dev --tables $tables --farms --top 2 --solver z3-only
printf 'apps:\n  - app: %s/apps/octree.yaml\n    streams: 2\n    table: %s/data/profiles/pixel7a/octree/interference.csv\n  - app: nope.yaml\n' "$src" "$src" > "$work/w1.yaml"
expect 1 "w1.yaml:5:10: error: app file '$work/nope.yaml' not found" schedule --workload "$work/w1.yaml" --device $dev
printf 'apps:\n  - app: %s/apps/octree.yaml\n    streams: 2\n    table: %s/data/profiles/pixel7a/octree/interference.csv\n  - app: %s/apps/alexnet-dense.yaml\n    weight: 2\n    table: %s/data/profiles/pixel7a/alexnet-dense/interference.csv\n' "$src" "$src" "$src" "$src" > "$work/w2.yaml"
expect 0 "octree#1" schedule --workload "$work/w2.yaml" --device $dev --top 1
printf 'apps:\n  - app: %s/apps/octree.yaml\n    streams: 0\n    colour: red\n' "$src" > "$work/w3.yaml"
expect 1 "w3.yaml:4:5: error: unknown key 'colour'" schedule --workload "$work/w3.yaml" --device $dev
expect 1 "not a btc report" report "$work/missing.json"
# ... and says why: the file is not there, or its JSON breaks at line:col
expect 1 "missing.json: error: not a btc report (JSON): cannot read: No such file or directory" report "$work/missing.json"
printf '{"app": "octree",\n "schema_version": }\n' > "$work/broken.json"
expect 1 "broken.json:2:20: error: not a btc report (JSON): not valid JSON" report "$work/broken.json"
# --replay: the tuner's rules on a report's recorded runs (driver/tune_replay.h;
# the choices themselves: test/driver/suite_tune_replay.c)
expect 1 "broken.json:2:20: error: not a btc report (JSON): not valid JSON" report --replay "$work/broken.json"
printf '{"schema_version": 3, "app": "a", "racing": true, "candidates": [\n {"index": 0, "kind": "candidate", "label": "gpu:0-1", "status": "verified", "tasks": 24, "warmup": 4, "runs": 6, "runs_ms": [1, 1, 1, 1, 1, 1]},\n {"index": 1, "kind": "baseline", "label": "cpu:0-1", "status": "verified", "tasks": 24, "warmup": 4, "runs": 6, "runs_ms": [2, 2, 2, 2, 2, 2]}]}\n' > "$work/replay.json"
expect 0 "rules new: chose 0 (gpu:0-1), recorded median 1.000000 ms, regret 0.0 %" report --replay "$work/replay.json"
expect 0 '"name":	"point"' report --replay "$work/replay.json" --rules point --budget 30 --format json
expect 1 "schedule 0: no runs_ms for its 3 runs" report --replay "$src/test/driver/data/eval/lease-f/octree-cuda-g1/octree-cuda-g1.json"
expect 2 "btc: --rules needs --replay" report "$work/replay.json" --rules old
expect 2 "btc: --format needs --replay" report "$work/replay.json" --format json
expect 2 "btc: --replay and --compare cannot be given together" report --replay --compare "$work/replay.json" "$work/replay.json"
expect 2 "--rules: unknown rule set 'fast'" report --replay "$work/replay.json" --rules old,fast
expect 0 '"candidates"' schedule $app --device $dev --table $table --top 3 --format json --no-time -D max_points=307200
expect 0 '{little,big,gpu}:3-6' schedule $app --device $dev --table data/profiles/pixel7a/octree/isolated.csv --mode isolated --farms --objective latency --top 1
expect 0 '"farm":["little","big","gpu"]' schedule $app --device $dev --table data/profiles/pixel7a/octree/isolated.csv --mode isolated --farms --objective latency --top 1 --format json
expect 0 "generated" gen $app --device $dev --table data/profiles/pixel7a/octree/isolated.csv --mode isolated --farms --objective latency --top 1 -o "$work/farm-gen"
if ! grep -q "farm: \[little, big, gpu\]" "$work/farm-gen/schedule.yaml"; then
	echo "FAIL: btc gen --farms: no farm in $work/farm-gen/schedule.yaml"
	failed=$((failed + 1))
fi
expect 2 "--core-splits" check $app --core-splits
expect 0 '"fluid_bound_ms":' schedule $app --device $dev --table $table --top 3 --format json --no-time
expect 0 "fluid bound: " schedule $app --device $dev --table $table --top 3
# the assignment bound's own assignment: rank 1 of the interference table's
# space; the isolated table's gapness filter drops it (T_max 4.0236 ms)
expect 0 "(T_max 2.4131 ms, gapness 0.4151 ms; in the space, rank 1)" schedule $app --device $dev --table $table
expect 0 "outside the gapness-filtered space: gapness > G* + 0.50 * T_max = 2.0419 ms)" schedule $app --device $dev --table data/profiles/pixel7a/octree/isolated.csv --mode isolated
expect 0 '"assign_schedule":{"candidate_rank":0,"tmax_ms":4.023613,' schedule $app --device $dev --table data/profiles/pixel7a/octree/isolated.csv --mode isolated --format json --no-time
expect 0 "(efficiency of the best candidate: bound / T_max = " schedule $app --device $dev --table $table --top 3
expect 0 "" header $app -o"$work/octree_task.h"
expect 0 "" header $app --output="$work/octree_task2.h"
n=$((n + 1))
if ! cmp -s "$work/octree_task.h" "$work/octree_task2.h"; then
	echo "FAIL $n: header -oFILE and --output=FILE differ"
	failed=$((failed + 1))
fi

# ---- --top means the same to gen and schedule -----------------------------
n=$((n + 1))
"$btc" schedule $app --device $dev --table $table --top 4 --format json --no-time > "$work/s.json"
"$btc" gen $app --device $dev --table $table --top 4 -o "$work/gen" > /dev/null
c_sched=$(grep -o '"rank"' "$work/s.json" | wc -l)
c_gen=$(grep -c 'kind: candidate' "$work/gen/schedule.yaml")
if [ "$c_sched" != 4 ] || [ "$c_gen" != 4 ]; then
	echo "FAIL $n: --top 4: schedule ranked $c_sched, gen built $c_gen candidates"
	failed=$((failed + 1))
fi

cli_done
