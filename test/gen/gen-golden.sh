#!/usr/bin/env bash
# Golden files of generated code: one schedule per backend (CPU only,
# CPU+Vulkan, CPU+CUDA) of examples/vecadd on a fixed device, a farm and
# core splits (issue 16), and the service-core placement on a fixed
# 16-core workstation, with one loader and one check worker and with the
# io farms the plan chooses from a table whose load (0.45 ms) and check
# (0.83 ms) lie above the best compute period (0.25 ms): two loaders and
# two check workers, the two threads more that the 16 cores allow
# (docs/scheduler.md, "The io farms"). Run with
# BTC_UPDATE_GOLDEN=1 to rewrite the goldens after an intended change.
set -euo pipefail
btc=$1 src=$2 work=$3
golden=$src/test/gen/golden
rm -rf "$work" && mkdir -p "$work"
cases=(
  "cpu testbox --chunks little:0-1,big:2"
  "vulkan testbox --gpu vulkan --chunks big:0,gpu:1-2"
  "cuda testbox --gpu cuda --chunks little:0,cuda:1-2"
  "service workstation --gpu cuda --chunks cpu:0,cuda:1-2"
  "farm testbox --gpu vulkan --chunks {little,gpu}:0-1,big[1]:2 --chunks little[1]:0,little[1]:1-2"
  "iofarms workstation --gpu cuda --table $src/test/gen/data/workstation-vecadd.csv"
)
status=0
for c in "${cases[@]}"; do
  name=${c%% *}
  rest=${c#* }
  dev=${rest%% *}
  args=${rest#* }
  # shellcheck disable=SC2086
  "$btc" gen "$src/examples/vecadd/vecadd.yaml" --device "$src/test/gen/data/$dev.yaml" \
    $args -o "$work/$name" > /dev/null
  for f in pipeline.c profiler.c vecadd_task.h meson.build meson_options.txt schedule.yaml btrt/meson.build; do
    if [ "${BTC_UPDATE_GOLDEN:-0}" = 1 ]; then
      mkdir -p "$(dirname "$golden/$name/$f")"
      cp "$work/$name/$f" "$golden/$name/$f"
    elif ! diff -u "$golden/$name/$f" "$work/$name/$f"; then
      echo "FAIL: $name/$f differs from the golden (BTC_UPDATE_GOLDEN=1 rewrites it)"
      status=1
    fi
  done
done
[ "${BTC_UPDATE_GOLDEN:-0}" = 1 ] && echo "goldens updated in $golden"

# The io farms' headroom (BTC_PLAN_IO_HEADROOM 0.75) against the best
# compute period in any mode of the table (plan_best_tmax): the planned
# interference mode reads 0.25 ms, the isolated mode 0.20 ms, so the farms
# are sized for 0.75 x 0.20 = 0.15 ms. The same table with load 0.10 ms
# and a check of 0.20 ms gets two check workers, and so does a check of
# 0.18 ms (one, were the farms sized for the planned mode alone: 0.1875
# ms); a check of 0.14 ms one; the load one loader each time.
for c in 0.20:2 0.18:2 0.14:1; do
  sed -e 's/^@io_load,io,\([a-z]*\),0.45,/@io_load,io,\1,0.10,/' \
      -e "s/^@io_check,io,\([a-z]*\),0.83,/@io_check,io,\1,${c%:*},/" \
      -e "s/^@io,io,\([a-z]*\),1.28,/@io,io,\1,0.38,/" \
      "$src/test/gen/data/workstation-vecadd.csv" > "$work/headroom.csv"
  grep -q "^@io_check,io,isolated,${c%:*}," "$work/headroom.csv" || { echo "FAIL: headroom table"; exit 1; }
  "$btc" gen "$src/examples/vecadd/vecadd.yaml" --device "$src/test/gen/data/workstation.yaml" \
    --gpu cuda --table "$work/headroom.csv" -o "$work/headroom" > /dev/null
  grep -q "^#define PIPELINE_CHECK_THREADS ${c#*:}$" "$work/headroom/pipeline.c" &&
    grep -q "^#define PIPELINE_LOAD_THREADS 1 " "$work/headroom/pipeline.c" ||
    { echo "FAIL: check ${c%:*} ms: not ${c#*:} check workers and 1 loader"; grep -n "_THREADS" "$work/headroom/pipeline.c"; status=1; }
done
exit $status
