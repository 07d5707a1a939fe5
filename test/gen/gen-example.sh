#!/usr/bin/env bash
# The walk-through app (examples/edges, docs/app-format.md "Write your first
# app") and the mistakes a new author makes, each caught and named:
#  1. a shader binding a buffer its stage does not declare: btc check fails
#  2. a GLSL typo: btc check compiles shaders, file:line:col, stage note, count
#  3. a wrong shader: the program names the last stage, its chunk and PU
#  4. btc header / header --glsl need only the YAML
#  6. --list shows '-' for a schedule without prediction
# and the example itself builds and verifies a CPU-only and a CPU+Vulkan
# schedule. Usage: gen-example.sh BTC SOURCE_ROOT WORK_DIR
set -uo pipefail
btc=$1 src=$2 work=$3
. "$src/test/common/skip.sh"
rm -rf "$work" && mkdir -p "$work"
n=0 failed=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
# has TEXT PATTERN: TEXT contains PATTERN (fixed string)
has() { n=$((n + 1)); grep -qF -- "$2" <<<"$1" || { fail "want '$2' in:"; sed 's/^/    /' <<<"$1" | head -30; }; }

ex=$src/examples/edges
# A copy of the example whose YAML input is absolute (the copy moves).
copy() { rm -rf "$work/$1" && cp -r "$ex" "$work/$1" &&
  sed -i "s|^input: .*|input: $src/data/cifar10/sample_batch.bin|" "$work/$1/edges.yaml"; }

# ---- the example passes btc check -----------------------------------------
out=$("$btc" check "$ex/edges.yaml" 2>&1); rc=$?
[ $rc = 0 ] || fail "btc check examples/edges: exit $rc"; has "$out" "ok"

# ---- 1. undeclared binding, readonly written buffer, push count --------------
copy bad1
sed -i 's/reads: \[edge\]/reads: []/' "$work/bad1/edges.yaml"                   # hist binds edge
# stage gray declares blur written, its shader binds blur readonly
sed -i '0,/writes: \[gray\]/s//writes: [gray, blur]/' "$work/bad1/edges.yaml"
sed -i 's/^layout(push_constant)/layout(std430, binding = BINDING_blur) readonly buffer Blur { uint blur[]; };\n&/; s/^\tif (i < n)$/\tif (i < n \&\& blur[0] != 7u)/' "$work/bad1/gray.comp"
sed -i 's/uint w; uint h; }/uint w; uint h; uint pad; }/' "$work/bad1/blur.comp"
sed -i 's/readonly buffer Blur/buffer Blur/' "$work/bad1/sobel.comp"           # only read: warning
out=$("$btc" check "$work/bad1/edges.yaml" 2>&1); rc=$?
[ $rc = 1 ] || fail "bad bindings: exit $rc, want 1"
has "$out" "hist.comp:5:"
has "$out" "shader binds buffer 'edge' (BINDING_edge), which stage 'hist' does not declare"
has "$out" "note: in the shader of stage 'hist'"
has "$out" "gray.comp:8:26: error: buffer 'blur' is declared readonly in the shader, but stage 'gray' writes it"
has "$out" "push-constant block has 3 members, but dispatch 0 of stage 'blur' pushes 2 values"
has "$out" "warning: stage 'sobel' only reads buffer 'blur': declare it readonly"
has "$out" "btc: 3 errors, 1 warning"

# ---- 2. a GLSL typo: at check time, with column, stage and count -------------
copy bad2
sed -i 's/binding = BINDING_hist/binding = BINDING_hsit/' "$work/bad2/hist.comp"
out=$("$btc" check "$work/bad2/edges.yaml" 2>&1); rc=$?
[ $rc = 1 ] || fail "GLSL typo: exit $rc, want 1"
has "$out" "hist.comp:6:26: error: 'BINDING_hsit' : undeclared identifier"
has "$out" "edges.yaml:32:5: note: in the shader of stage 'hist' (vulkan dispatch 0)"
has "$out" "note: 3 more errors on the same line follow from the first"
has "$out" "btc: 1 error"

# ---- 6. an unknown buffer name: did you mean -------------------------------
copy bad6
sed -i 's/reads: \[edge\]/reads: [egde]/' "$work/bad6/edges.yaml"
out=$("$btc" check "$work/bad6/edges.yaml" 2>&1)
has "$out" "undefined buffer 'egde' in reads (did you mean 'edge'?)"

# ---- 4. btc header needs only the YAML ---------------------------------------
mkdir -p "$work/hdr" && cp "$ex/edges.yaml" "$work/hdr/"
out=$("$btc" header "$work/hdr/edges.yaml" 2>&1); rc=$?
[ $rc = 0 ] || fail "btc header without sources: exit $rc"; has "$out" "struct edges_task {"
out=$("$btc" header --glsl "$work/hdr/edges.yaml" 2>&1); rc=$?
[ $rc = 0 ] || fail "btc header --glsl without shaders: exit $rc"; has "$out" "#define BINDING_rgb 0"

# ---- the example: CPU-only and CPU+Vulkan schedules build and verify ---------
# Without a Vulkan device: SKIP, unless a check above failed.
if [ $failed != 0 ] && ! btc_test_have_vulkan; then
  echo "no Vulkan device (not even llvmpipe): cannot run the Vulkan schedules"
  echo "$n checks, $failed failed"
  exit 1
fi
btc_test_need_vulkan gen-example "cannot run the Vulkan schedules"
gpu=$(btc_test_host_pu vulkan)
cpu=$(btc_test_host_pu cpu)
gen() { # gen DIR YAML: two schedules, CPU-only and CPU+Vulkan
  "$btc" gen "$2" --device host --gpu vulkan --chunks "$cpu:0-3" --chunks "$cpu:0-1,$gpu:2-3" \
    -o "$work/$1" --build > "$work/$1.log" 2>&1 || { cat "$work/$1.log"; fail "gen $1"; return 1; }
}
if gen proj "$ex/edges.yaml"; then
  prog=$work/proj/build/edges-pipeline
  list=$("$prog" --list); has "$list" "$cpu:0-1 $gpu:2-3"
  n=$((n + 1)); grep -q " 0.0000 " <<<"$list" && fail "--list prints 0.0000 for no prediction"
  for s in $(seq 0 $(($("$prog" --list | wc -l) - 2))); do
    out=$(BTRT_NO_PIN=1 "$prog" --schedule "$s" --tasks 40 --quiet 2>&1)
    has "$out" "verified 40 tasks"
  done
fi

# ---- 3. a wrong hist shader: the failing run names stage, chunk and PU --------
copy bad3
sed -i 's/hist\[b\] = count;/hist[b] = count + 1u;/' "$work/bad3/hist.comp"
if gen proj3 "$work/bad3/edges.yaml"; then
  prog=$work/proj3/build/edges-pipeline
  has "$(cat "$work/proj3/meson_options.txt")" "value: '$src/data/cifar10/sample_batch.bin'"
  out=$(BTRT_NO_PIN=1 "$prog" --schedule 0 --tasks 8 --quiet 2>&1); rc=$?
  [ $rc = 0 ] || fail "CPU-only schedule of the wrong shader: exit $rc"
  out=$(BTRT_NO_PIN=1 "$prog" --schedule 1 --tasks 8 --quiet 2>&1); rc=$?
  [ $rc != 0 ] || fail "Vulkan hist with a wrong shader passed"
  has "$out" "buffer 'hist' (stage 'hist') differs first"
  has "$out" "written by stage 3 'hist' (the last), run by chunk 1 on PU '$gpu' (vulkan kernel)"
fi

echo "$n checks, $failed failed"
[ $failed = 0 ]
