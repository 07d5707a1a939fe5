#!/usr/bin/env bash
# Generated pipelines build and pass their output checks: examples/vecadd
# CPU-only and CPU+Vulkan (llvmpipe here), and alexnet-dense on real
# CIFAR-10 images with CPU+Vulkan chunks. Without a Vulkan device: SKIP,
# a failure under BTC_REQUIRE_VULKAN=1 (scripts/test).
set -euo pipefail
btc=$1 src=$2 work=$3
. "$src/test/common/skip.sh"
rm -rf "$work" && mkdir -p "$work"
btc_test_need_vulkan gen-run "cannot run the Vulkan pipelines"
gpu=$(btc_test_host_pu vulkan)
cpu=$(btc_test_host_pu cpu)
run() {
  local app=$1 dir=$2 tasks=$3
  shift 3
  "$btc" gen "$src/$app" --device host --gpu vulkan "$@" -o "$work/$dir" --build > "$work/$dir.log" 2>&1 ||
    { cat "$work/$dir.log"; exit 1; }
  prog=$(ls "$work/$dir"/build/*-pipeline)
  # the schedules as data (--list-json); as many as --list prints rows
  mapfile -t labels < <("$prog" --list-json | python3 -c '
import json, sys
for i, s in enumerate(json.load(sys.stdin)):
    assert s["index"] == i and s["chunks"], s
    print(s["label"])')
  n=${#labels[@]}
  [ "$n" -gt 0 ] && [ "$n" -eq "$("$prog" --list | tail -n +2 | wc -l)" ] ||
    { echo "FAIL: --list-json gave $n schedules, --list another count"; exit 1; }
  for ((s = 0; s < n; s++)); do
    out=$(BTRT_NO_PIN=1 "$prog" --schedule $s --tasks "$tasks" --quiet)
    echo "$app schedule $s (${labels[s]}): $out"
    grep -q "^verified $tasks tasks" <<< "$out"
  done
}
run examples/vecadd/vecadd.yaml vecadd-cpu 40 --chunks "$cpu:0-2"
run examples/vecadd/vecadd.yaml vecadd-vk 40 --chunks "$cpu:0,$gpu:1-2" --chunks "$gpu:0-1,$cpu:2"
run apps/alexnet-dense.yaml alexnet 16 --chunks "$cpu:0-3,$gpu:4-8"
