#!/usr/bin/env bash
# Inputs a new user gets wrong (issue 26, findings 6 and 7): each case
# copies examples/vecadd, breaks one thing and checks that `btc check` (or
# `btc gen`) names it. Usage: cli-inputs.sh BTC SOURCE_ROOT WORK_DIR
set -uo pipefail
btc=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
testbox=$src/test/gen/data/testbox.yaml
n=0 failed=0

# app NAME SED-SCRIPT: a copy of examples/vecadd in $work/NAME with the
# YAML edited by SED-SCRIPT.
app() {
	rm -rf "$work/$1" && cp -r "$src/examples/vecadd" "$work/$1"
	sed -i "$2" "$work/$1/vecadd.yaml"
}

# expect RC PATTERN ARGS...: btc ARGS exits RC and prints PATTERN (stdout
# and stderr; fixed string).
expect() {
	local want=$1 pat=$2 out rc
	shift 2
	n=$((n + 1))
	out=$("$btc" "$@" 2>&1)
	rc=$?
	if [ "$rc" != "$want" ] || ! grep -qF -- "$pat" <<<"$out"; then
		echo "FAIL $n: btc $* -> exit $rc (want $want), output:"
		sed 's/^/    /' <<<"$out" | head -20
		echo "    (want the text: $pat)"
		failed=$((failed + 1))
	fi
}

# ---- misspelled kernel symbols: named at their YAML line:col -------------
app sym 's/cpu: vecadd_add_cpu/cpu: vecadd_ad_cpu/; s/io: vecadd_io/io: vecadd_oi/; s/cuda: vecadd_scale_cuda/cuda: vecadd_scal_cuda/'
y=$work/sym/vecadd.yaml
expect 1 "$y:22:10: error: stage 'add': cpu kernel 'vecadd_ad_cpu' is not defined in the app's cpu sources (vecadd.c)" check "$y"
expect 1 "$y:33:5: error: io symbol 'vecadd_oi' is not defined in the app's cpu sources (vecadd.c)" check "$y"
expect 1 "$y:16:11: error: stage 'scale': cuda launcher 'vecadd_scal_cuda' is not in the app's cuda sources (vecadd.cu)" check "$y"
expect 0 "ok" check "$src/examples/vecadd/vecadd.yaml"

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
cpu=$("$btc" device host | awk '/name:/ {n=$3} /kind: cpu/ {print n; exit}')
n=$((n + 1))
if "$btc" gen "$work/wrong/vecadd.yaml" --device host --chunks "$cpu:0-2" -o "$work/wrong-gen" --build \
	> "$work/wrong-gen.log" 2>&1; then
	"$work/wrong-gen/build/vecadd-pipeline" --tasks 4 > "$work/wrong.out" 2> "$work/wrong.err"
	if ! grep -qF "the check compares buffer 'y', written by stage 0 'scale', run by chunk 0 on PU '$cpu'" "$work/wrong.err"; then
		echo "FAIL $n: a failed check does not name buffer y's writer:"
		sed 's/^/    /' "$work/wrong.err" | head
		failed=$((failed + 1))
	fi
else
	echo "FAIL $n: the wrong app does not build"; tail "$work/wrong-gen.log"
	failed=$((failed + 1))
fi

echo "$((n - failed))/$n passed"
[ "$failed" = 0 ]
