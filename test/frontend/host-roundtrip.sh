#!/usr/bin/env bash
# `btc device host` prints a description that `btc check --device` accepts,
# also with its cores split into two CPU PUs (where there are two cores).
set -euo pipefail
btc=$1 src=$2 work=$3
"$btc" device host > "$work/host.yaml"
"$btc" check "$src/apps/octree.yaml" --device "$work/host.yaml" | tail -3
if [ "$(nproc)" -lt 2 ]; then
  echo "one core: no CPU groups to check"
  exit 0
fi
"$btc" device host --cpu-groups 2 > "$work/host2.yaml"
grep -q "name: cpu1\|name: little1\|name: big1" "$work/host2.yaml"
"$btc" check "$src/apps/octree.yaml" --device "$work/host2.yaml" | tail -3
