#!/usr/bin/env bash
# Inputs a new user gets wrong (issue 26, findings 6 and 7): each case
# copies examples/vecadd, breaks one thing and checks that `btc check` (or
# `btc gen`) names it. Usage: cli-inputs.sh BTC SOURCE_ROOT WORK_DIR
set -uo pipefail
btc=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
. "$src/test/cli/lib.sh"
testbox=$src/test/gen/data/testbox.yaml

# app NAME SED-SCRIPT: a copy of examples/vecadd in $work/NAME with the
# YAML edited by SED-SCRIPT.
app() {
	rm -rf "$work/$1" && cp -r "$src/examples/vecadd" "$work/$1"
	sed -i "$2" "$work/$1/vecadd.yaml"
}

# ---- misspelled kernel symbols: named at their YAML line:col -------------
app sym 's/cpu: vecadd_add_cpu/cpu: vecadd_ad_cpu/; s/io: vecadd_io/io: vecadd_oi/; s/cuda: vecadd_scale_cuda/cuda: vecadd_scal_cuda/'
y=$work/sym/vecadd.yaml
expect 1 "$y:22:10: error: stage 'add': cpu kernel 'vecadd_ad_cpu' is not defined in the app's cpu sources (vecadd.c)" check "$y"
expect 1 "$y:33:5: error: io symbol 'vecadd_oi' is not defined in the app's cpu sources (vecadd.c)" check "$y"
expect 1 "$y:16:11: error: stage 'scale': cuda launcher 'vecadd_scal_cuda' is not in the app's cuda sources (vecadd.cu)" check "$y"
expect 0 "ok" check "$src/examples/vecadd/vecadd.yaml"
# ... and by btc gen, the same error, before anything is written
cpu=$(btc_test_host_pu cpu)
expect 1 "$y:22:10: error: stage 'add': cpu kernel 'vecadd_ad_cpu' is not defined in the app's cpu sources (vecadd.c)" gen "$y" --device host --chunks "$cpu:0-2" -o "$work/sym-out"
expect 1 "$y:33:5: error: io symbol 'vecadd_oi' is not defined in the app's cpu sources (vecadd.c)" gen "$y" --device host --chunks "$cpu:0-2" -o "$work/sym-out"
n=$((n + 1))
[ ! -e "$work/sym-out" ] || { echo "FAIL $n: btc gen of a misspelled symbol wrote $work/sym-out"; failed=$((failed + 1)); }
# ... and by btc gen of several apps (a workload project), on given
# schedules and on the joint plan (tables: every stage 1 ms on every PU)
e=$src/examples/edges/edges.yaml
expect 1 "$y:22:10: error: stage 'add': cpu kernel 'vecadd_ad_cpu' is not defined in the app's cpu sources (vecadd.c)" gen "$y" "$e" --device host --chunks "vecadd=$cpu:0-2" --chunks "edges=$cpu:0-3" -o "$work/sym-out"
. "$src/test/driver/lib.sh" # host_table
host_table "$btc" "$src/examples/vecadd/vecadd.yaml" "$work/vecadd.csv"
host_table "$btc" "$e" "$work/edges.csv"
expect 1 "$y:33:5: error: io symbol 'vecadd_oi' is not defined in the app's cpu sources (vecadd.c)" gen "$y" "$e" --device host --app-table "vecadd=$work/vecadd.csv" --app-table "edges=$work/edges.csv" -o "$work/sym-out"
n=$((n + 1))
[ ! -e "$work/sym-out" ] || { echo "FAIL $n: btc gen of two apps, one misspelled, wrote $work/sym-out"; failed=$((failed + 1)); }
# the same two tables with the correct app: the joint plan's project is made
expect 0 "generated $work/sym-ok: 2 apps" gen "$src/examples/vecadd/vecadd.yaml" "$e" --device host --app-table "vecadd=$work/vecadd.csv" --app-table "edges=$work/edges.csv" -o "$work/sym-ok"

# ---- several apps, the second failing once the first is written: no -o left --
# A new -o of btc gen of several apps is published whole, as one app's
# (docs/conventions.md, "Writing files"): vecadd is generated, then edges'
# GLSL typo fails its shader's compile; neither -o nor its DIR.tmp.PID
# sibling is left. On given schedules and on the joint plan (a Vulkan
# device without CUDA, tables of every stage 1 ms on each of its PUs).
rm -rf "$work/typo" && cp -r "$src/examples/edges" "$work/typo" &&
	sed -i 's/binding = BINDING_hist/binding = BINDING_hsit/' "$work/typo/hist.comp"
grep -v "kind: cuda" "$testbox" > "$work/vkbox.yaml"
for a in vecadd edges; do
	y=$src/examples/$a/$a.yaml
	{
		echo "stage,pu,mode,mean_ms,stddev_ms,samples"
		for m in isolated interference; do
			for s in $("$btc" check "$y" | awk '/^stages:/ {s = 1; next} s && $1 ~ /^[0-9]+$/ {print $2}'); do
				for p in little big gpu; do echo "$s,$p,$m,1.000000,0.100000,10"; done
			done
		done
	} > "$work/vk-$a.csv"
done
for how in chunks joint; do
	if [ $how = chunks ]; then
		args=(--chunks vecadd=little:0-2 --chunks edges=little:0-3)
	else
		args=(--app-table "vecadd=$work/vk-vecadd.csv" --app-table "edges=$work/vk-edges.csv")
	fi
	expect 1 "hist.comp:6:26: error: 'BINDING_hsit' : undeclared identifier" gen "$src/examples/vecadd/vecadd.yaml" "$work/typo/edges.yaml" --device "$work/vkbox.yaml" "${args[@]}" -o "$work/part-$how"
	n=$((n + 1))
	if [ -e "$work/part-$how" ] || compgen -G "$work/part-$how.tmp.*" > /dev/null; then
		echo "FAIL $n: btc gen of two apps ($how), the second failing, left:"
		find "$work" -path "$work/part-$how*" | sed 's/^/    /' | head
		failed=$((failed + 1))
	fi
	# the same with edges as it is: the project is made
	expect 0 "generated $work/ok-$how: 2 apps" gen "$src/examples/vecadd/vecadd.yaml" "$e" --device "$work/vkbox.yaml" "${args[@]}" -o "$work/ok-$how"
done

# ---- a cuda launcher a macro defines: nvcc's symbols find it ------------------
app macro 's/^app: vecadd/app: vecadd/'
sed -i 's/^extern "C" int vecadd_add_cuda(/#define LAUNCHER(s) extern "C" int vecadd_##s##_cuda\nLAUNCHER(add)(/' "$work/macro/vecadd.cu"
grep -q "^LAUNCHER(add)" "$work/macro/vecadd.cu" || { echo "FAIL: the test's .cu edit did not apply"; failed=$((failed + 1)); }
if command -v nvcc > /dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
	expect 0 "ok" check "$work/macro/vecadd.yaml"
else
	echo "SKIP: no nvcc: a launcher a macro defines"
fi
n=$((n + 1))
out=$(NVCC=/nonexistent/nvcc "$btc" check "$work/macro/vecadd.yaml" 2>&1)
if [ $? != 1 ] || [ "$(grep -cF "CUDA launchers checked by text only" <<<"$out")" != 1 ] ||
	! grep -qF "cuda launcher 'vecadd_add_cuda' is not in the app's cuda sources" <<<"$out"; then
	echo "FAIL $n: without nvcc, one note and the text's verdict:"; sed 's/^/    /' <<<"$out"
	failed=$((failed + 1))
fi

# ---- a buffer read before the stage that writes it -------------------------
app order 's/    reads: \[x\]$/    reads: [x, z]/'
expect 0 "stage 'scale' reads buffer 'z' before any stage writes it (stage 'add' writes it later)" check "$work/order/vecadd.yaml"

# ---- a shader without #version: glslang's built-ins stay off stdout ---------
app nover 's/^app: vecadd/app: vecadd/'
sed -i 1d "$work/nover/add.comp"
n=$((n + 1))
"$btc" check "$work/nover/vecadd.yaml" > "$work/nover.out" 2> "$work/nover.err"
lines=$(wc -l < "$work/nover.out") errlines=$(wc -l < "$work/nover.err")
if [ "$lines" -gt 40 ] || [ "$errlines" -gt 40 ] || ! grep -qF "glslang printed" "$work/nover.err" ||
	! grep -qF "add.comp: error: #version" "$work/nover.err"; then
	echo "FAIL $n: shader without #version: $lines lines on stdout, $errlines on stderr"
	head -5 "$work/nover.err"
	failed=$((failed + 1))
fi

# ---- integers of --chunks: no 32-bit wrap -----------------------------------
v=$src/examples/vecadd/vecadd.yaml
expect 1 "bad stage range '0-4294967298'" gen "$v" --device "$testbox" --chunks 'big:0-4294967298' -o "$work/g1"
expect 1 "core count '[4294967298]' is out of range" gen "$v" --device "$testbox" --chunks 'big[4294967298]:0-2' -o "$work/g2"

# ---- stable schedule numbers: a --chunks equal to a baseline moves none ----
# baseline_index DIR PU: schedule.yaml's index of PU's baseline (the last
# entry running every stage on PU: a --chunks spec may be the same).
baseline_index() {
	awk -v pu="$2" '/- index:/ {i=$3} /kind:/ {k=$2} \
		k == "baseline" && $0 ~ "pu: " pu "," {b=i} END {print b}' "$1/schedule.yaml"
}
for spec in big:0-2 little:0,big:1-2; do
	d=$work/num-${spec//[:,]/_}
	"$btc" gen "$v" --device "$testbox" --chunks "$spec" --chunks little:0-1,big:2 -o "$d" > "$d.log" 2>&1
done
n=$((n + 1))
a=$work/num-big_0-2 b=$work/num-little_0_big_1-2
if [ "$(baseline_index "$a" cuda)" != 4 ] || [ "$(baseline_index "$b" cuda)" != 4 ] ||
	[ "$(baseline_index "$a" big)" != 3 ] || [ "$(baseline_index "$a" little)" != 2 ]; then
	echo "FAIL $n: baseline numbers depend on a --chunks equal to one:" \
		"cuda $(baseline_index "$a" cuda) vs $(baseline_index "$b" cuda)," \
		"big $(baseline_index "$a" big), little $(baseline_index "$a" little)"
	failed=$((failed + 1))
fi
n=$((n + 1))
if ! grep -qF "note: schedule 0 (big:0-2) is also the big baseline, schedule 3: both numbers run it" "$a.log"; then
	echo "FAIL $n: no note names the pair:"; sed 's/^/    /' "$a.log"
	failed=$((failed + 1))
fi

# ---- a core this machine does not have: a warning at check, an error here --
"$btc" device host | sed 's/cores: \[\([0-9]*\)[0-9, ]*\]/cores: [\1, 1000]/' > "$work/far.yaml"
expect 0 "core 1000 is not available on this machine" check "$v" --device "$work/far.yaml"
expect 1 "error: PU '" profile "$v" --device "$work/far.yaml" --cache "$work/cache"
expect 1 "core 1000 is not available on this machine" profile "$v" --device "$work/far.yaml" --cache "$work/cache"

# ---- the default input: a symlink stays the name the YAML wrote ------------
app link 's/^io: vecadd_io$/io: vecadd_io\ninput: in.bin/'
mkdir -p "$work/elsewhere" && : > "$work/elsewhere/real.bin" && ln -s "$work/elsewhere/real.bin" "$work/link/in.bin"
n=$((n + 1))
"$btc" gen "$work/link/vecadd.yaml" --device "$testbox" --chunks big:0-2 -o "$work/link-gen" > "$work/link.log" 2>&1
if ! grep -q "value: '../link/in.bin'" "$work/link-gen/meson_options.txt" ||
	grep -q elsewhere "$work/link-gen/meson_options.txt"; then
	echo "FAIL $n: the default input follows the symlink:"; grep input "$work/link-gen/meson_options.txt"
	failed=$((failed + 1))
fi

# ---- a failed check names the io's buffer and the stage that wrote it --------
# scale computes 3x instead of 2x; the io checks y first and names it.
app wrong 's/^app: vecadd/app: vecadd/'
sed -i 's/t->y\[i\] = 2.0f \* t->x\[i\];/t->y[i] = 3.0f * t->x[i];/' "$work/wrong/vecadd.c"
sed -i "s/^\(\t\tfloat x = input_value(seq, i), y = 2.0f \* x, z = y + x;\)$/\1\n\t\tif (memcmp(\&y, \&t->y[i], sizeof(y)) != 0) {\n\t\t\tsnprintf(err, len, \"buffer 'y' (stage 'scale'): y[%lld] differs\", (long long)i);\n\t\t\treturn -1;\n\t\t}/" "$work/wrong/vecadd.c"
grep -q "buffer 'y'" "$work/wrong/vecadd.c" || { echo "FAIL: the test's io edit did not apply"; failed=$((failed + 1)); }
cpu=$(btc_test_host_pu cpu)
n=$((n + 1))
if "$btc" gen "$work/wrong/vecadd.yaml" --device host --chunks "$cpu:0-2" -o "$work/wrong-gen" --build \
	> "$work/wrong-gen.log" 2>&1; then
	"$work/wrong-gen/build/vecadd-pipeline" --tasks 4 > "$work/wrong.out" 2> "$work/wrong.err"
	# --list and schedule.yaml agree: the spec is 0, the cpu baseline its own number
	"$work/wrong-gen/build/vecadd-pipeline" --list > "$work/wrong.list"
	k=$(baseline_index "$work/wrong-gen" "$cpu")
	if [ "$k" != 1 ] || ! awk -v k="$k" -v l="$cpu:0-2" '$1 == 0 && $NF == l {a=1}
		$1 == k && $2 == "baseline" && $NF == l {b=1} END {exit !(a && b)}' "$work/wrong.list"; then
		echo "FAIL $n: --list and schedule.yaml disagree (baseline index '$k'):"
		sed 's/^/    /' "$work/wrong.list"
		failed=$((failed + 1))
	fi
	if ! grep -qF "the check compares buffer 'y', written by stage 0 'scale', run by chunk 0 on PU '$cpu'" "$work/wrong.err"; then
		echo "FAIL $n: a failed check does not name buffer y's writer:"
		sed 's/^/    /' "$work/wrong.err" | head
		failed=$((failed + 1))
	fi
else
	echo "FAIL $n: the wrong app does not build"; tail "$work/wrong-gen.log"
	failed=$((failed + 1))
fi

# ---- special files as btc's own inputs: refused at once, named --------------
# (a FIFO with no writer blocked btc in open() forever, a copy of
# /dev/zero was read until the size cap: scripts/hostile, tables/is-fifo)
mkfifo "$work/fifo" && mkdir -p "$work/adir"
for what in "table fifo" "table adir" "device fifo" "app fifo" "app adir"; do
	set -- $what
	f=$work/$2 kind="a FIFO"
	[ "$2" = adir ] && kind="a directory"
	case $1 in
	table) args=(schedule "$src/examples/vecadd/vecadd.yaml" --device host --table "$f") ;;
	device) args=(check "$src/examples/vecadd/vecadd.yaml" --device "$f") ;;
	app) args=(check "$f" --device host) ;;
	esac
	n=$((n + 1))
	out=$(timeout 20 "$btc" "${args[@]}" 2>&1)
	rc=$?
	if [ $rc != 1 ] || ! grep -qF "$f: error: is $kind, not a regular file" <<<"$out"; then
		echo "FAIL $n: btc ${args[*]} -> exit $rc (124: it blocked), output:"
		sed 's/^/    /' <<<"$out" | head -5
		failed=$((failed + 1))
	fi
done
# a kernel source that is a FIFO: refused, not hashed (blocked)
rm -rf "$work/srcfifo" && cp -r "$src/examples/vecadd" "$work/srcfifo" &&
	rm "$work/srcfifo/vecadd.c" && mkfifo "$work/srcfifo/vecadd.c"
n=$((n + 1))
out=$(timeout 20 "$btc" check "$work/srcfifo/vecadd.yaml" --device host 2>&1)
rc=$?
if [ $rc != 1 ] || ! grep -qF "source file '$work/srcfifo/vecadd.c' is a FIFO, not a regular file" <<<"$out"; then
	echo "FAIL $n: a FIFO kernel source -> exit $rc (124: it blocked), output:"
	sed 's/^/    /' <<<"$out" | head -5
	failed=$((failed + 1))
fi

cli_done
