#!/usr/bin/env bash
# `btc device host` prints a description that `btc check --device` accepts.
set -euo pipefail
btc=$1 src=$2 work=$3
"$btc" device host > "$work/host.yaml"
"$btc" check "$src/apps/octree.yaml" --device "$work/host.yaml" | tail -3
"$btc" device host --cpu-groups 2 > "$work/host2.yaml" 2>/dev/null || exit 0  # one core: nothing to split
"$btc" check "$src/apps/octree.yaml" --device "$work/host2.yaml" | tail -3
