#!/usr/bin/env bash
# Generating twice, the second time from another working directory, gives
# identical bytes (the whole project, SPIR-V included).
set -euo pipefail
btc=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work/elsewhere"
for app in examples/vecadd/vecadd.yaml apps/alexnet-dense.yaml apps/octree.yaml; do
  out=$work/project
  rm -rf "$out" "$work/first"
  (cd "$src" && "$btc" gen "$app" --device test/gen/data/testbox.yaml --gpu vulkan \
     --chunks "big:0,gpu:1-$(($("$btc" check "$app" | sed -n 's/.*: \([0-9]*\) stages.*/\1/p') - 1))" \
     -o "$out" > /dev/null)
  cp -r "$out" "$work/first"
  rm -rf "$out"
  (cd "$work/elsewhere" && "$btc" gen "$src/$app" --device "$src/test/gen/data/testbox.yaml" --gpu vulkan \
     --chunks "big:0,gpu:1-$(($("$btc" check "$src/$app" | sed -n 's/.*: \([0-9]*\) stages.*/\1/p') - 1))" \
     -o "$out" > /dev/null)
  diff -r "$work/first" "$out"
  if grep -rn "$src" "$out" --include='*.c' --include='*.h' --include='*.yaml' --include=meson.build; then
    echo "FAIL: generated files contain the absolute source path"
    exit 1
  fi
  echo "ok: $app generated twice, identical"
done
