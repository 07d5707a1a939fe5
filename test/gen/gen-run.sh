#!/usr/bin/env bash
# Generated pipelines build and pass their output checks: examples/vecadd
# CPU-only and CPU+Vulkan (llvmpipe here), and alexnet-dense on real
# CIFAR-10 images with CPU+Vulkan chunks. Without a Vulkan device: SKIP,
# a failure under BTC_REQUIRE_VULKAN=1 (scripts/test).
set -euo pipefail
btc=$1 src=$2 work=$3
. "$src/test/common/skip.sh"
rm -rf "$work" && mkdir -p "$work"
if ! "$btc" device host | grep -q "kind: vulkan"; then
  btc_test_skip VULKAN gen-run "no Vulkan device (not even llvmpipe): cannot run the Vulkan pipelines"
fi
gpu=$("$btc" device host | awk '/name:/ {n=$3} /kind: vulkan/ {print n; exit}')
cpu=$("$btc" device host | awk '/name:/ {n=$3} /kind: cpu/ {print n; exit}')
run() {
  local app=$1 dir=$2 tasks=$3
  shift 3
  "$btc" gen "$src/$app" --device host --gpu vulkan "$@" -o "$work/$dir" --build > "$work/$dir.log" 2>&1 ||
    { cat "$work/$dir.log"; exit 1; }
  prog=$(ls "$work/$dir"/build/*-pipeline)
  n=$("$prog" --list | tail -n +2 | wc -l)
  for ((s = 0; s < n; s++)); do
    out=$(BTRT_NO_PIN=1 "$prog" --schedule $s --tasks "$tasks" --quiet)
    echo "$app schedule $s ($("$prog" --list | awk -v i=$((s + 2)) 'NR == i {print $4, $5, $6}')): $out"
    grep -q "^verified $tasks tasks" <<< "$out"
  done
}
run examples/vecadd/vecadd.yaml vecadd-cpu 40 --chunks "$cpu:0-2"
run examples/vecadd/vecadd.yaml vecadd-vk 40 --chunks "$cpu:0,$gpu:1-2" --chunks "$gpu:0-1,$cpu:2"
run apps/alexnet-dense.yaml alexnet 16 --chunks "$cpu:0-3,$gpu:4-8"
