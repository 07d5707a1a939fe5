# joint.sh: what the tests of joint-plan workload projects share
# (gen-joint, gen-joint-cores, gen-joint-larger and their -tsan runs):
# octree and alexnet-dense planned together, built, run and checked.
# Source it with btc, src and work set (and test/gen/tsan.sh sourced
# first where joint_1pu_start or joint_1pu_build get MODE tsan):
#   . "$src/test/gen/joint.sh"
#   joint_octree_table, joint_alexnet_table
#                     the committed dev-box tables (docs/results/
#                     eval-host-b: PUs cpu0, cpu1 and vulkan)
#   joint_gen LOG ARGS...
#                     btc gen of octree and alexnet-dense with ARGS, its
#                     output in $work/LOG, shown on failure (exit 1)
#   joint_build DIR MESON-OPTIONS...
#                     meson setup and ninja of the project DIR into
#                     DIR/build (log $work/DIR's name.build.log, its tail
#                     shown on failure); sets prog to its -workload program
#   joint_run NAME ARGS...
#                     $prog on 6 tasks a stream with ARGS, its report
#                     $work/NAME.json, its output $work/NAME.txt (shown,
#                     with the exit status, on failure); the environment
#                     assignments in joint_env (e.g. TSAN_OPTIONS=...) are
#                     added to the program's
#   joint_refuses ARGS...
#                     $prog with ARGS (word-split) on 2 tasks must exit 2,
#                     a usage error
#   joint_1pu_start NAME MODE
#                     a fresh $work; SKIP (77) without a Vulkan device and,
#                     with MODE tsan, when the C compiler cannot link
#                     -fsanitize=thread programs; then writes
#                     $work/host-1pu.yaml: the dev box as ONE CPU PU (cpu0,
#                     its 2 cores) plus vulkan (llvmpipe), the device of
#                     gen-joint-cores and gen-joint-larger
#   joint_1pu_build MODE ARGS...
#                     joint_gen gen.log ARGS -o $work/w, then joint_build
#                     of it without CUDA (under ThreadSanitizer with MODE
#                     tsan); sets dir ($work/w) and prog, and writes
#                     $prog --list-json to $work/list.json
# It sources test/common/skip.sh (btc_test_skip, btc_test_need_vulkan).
# test/gen/joint_list.py holds the Python side: `from joint_list import
# ...` in a test's Python (PYTHONPATH includes test/gen).
. "$src/test/common/skip.sh"
export PYTHONPATH=$src/test/gen${PYTHONPATH:+:$PYTHONPATH}

joint_octree_table=$src/docs/results/eval-host-b/cache/octree-host-9cf1953b57e332c6.csv
joint_alexnet_table=$src/docs/results/eval-host-b/cache/alexnet_dense-host-14e7e9be97bb8da2.csv
joint_env=()

joint_gen() {
  local log=$1
  shift
  "$btc" gen "$src/apps/octree.yaml" "$src/apps/alexnet-dense.yaml" "$@" > "$work/$log" 2>&1 ||
    { cat "$work/$log"; exit 1; }
}

joint_build() {
  local dir=$1 log
  shift
  log=$work/$(basename "$dir").build.log
  (meson setup "$dir/build" "$dir" "$@" && ninja -C "$dir/build") > "$log" 2>&1 ||
    { tail -30 "$log"; exit 1; }
  prog=$(ls "$dir"/build/*-workload)
}

joint_run() {
  local n=$1 rc=0
  shift
  env "${joint_env[@]}" "$prog" --tasks 6 --quiet --report "$work/$n.json" "$@" > "$work/$n.txt" 2>&1 ||
    rc=$?
  if [ "$rc" != 0 ]; then
    cat "$work/$n.txt"
    echo "FAIL: $n: exit $rc$([ "$rc" = 66 ] && echo ' (a ThreadSanitizer report)' || true)"
    exit 1
  fi
}

joint_refuses() {
  local rc=0
  # shellcheck disable=SC2086
  "$prog" $* --tasks 2 > "$work/bad.txt" 2>&1 || rc=$?
  [ "$rc" = 2 ] || { echo "FAIL: $*: exit $rc, expected 2"; cat "$work/bad.txt"; exit 1; }
}


joint_1pu_start() {
  rm -rf "$work" && mkdir -p "$work"
  btc_test_need_vulkan "$1"
  if [ "$2" = tsan ]; then tsan_need_cc "$1"; fi
  cat > "$work/host-1pu.yaml" << YAML
device: host
description: the dev box as one CPU PU of its 2 cores ($1)
os: linux
arch: x86_64
pus:
  - name: cpu0
    kind: cpu
    cores: [0, 1]
  - name: vulkan
    kind: vulkan
    select: 0
    unified_memory: true
    cpu_backed: true
    table_column: vulkan
YAML
}

joint_1pu_build() {
  local setup=(-Dcuda=disabled)
  if [ "$1" = tsan ]; then setup+=("${tsan_setup[@]}"); fi
  shift
  dir=$work/w
  joint_gen gen.log "$@" -o "$dir"
  joint_build "$dir" "${setup[@]}"
  "$prog" --list-json > "$work/list.json"
}
