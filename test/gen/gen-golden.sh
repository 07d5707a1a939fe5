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
exit $status
