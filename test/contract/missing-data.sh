#!/usr/bin/env bash
# Missing test data is a failure, not a pass: every suite that reads the
# data folder (data/, or $BTC_DATA_DIR) fails its init, and its runner
# exits 1 naming what is missing, when that folder is empty, and when the
# data's folders are there but hold nothing.
#   missing-data.sh ALEXNET_TESTS OCTREE_TEST [SCHED_TESTS FRONTEND_TESTS]
set -uo pipefail
alexnet=$1 octree=$2 sched=${3:-} frontend=${4:-}
unset BTC_REQUIRE_VULKAN BTC_REQUIRE_CUDA ALEXNET_IMAGES ALEXNET_WEIGHTS
empty=$(mktemp -d)
hollow=$(mktemp -d)
trap 'rm -rf "$empty" "$hollow"' EXIT
mkdir -p "$hollow/alexnet-cifar10" "$hollow/pointclouds" "$hollow/cifar10" "$hollow/profiles"
. "$(dirname "${BASH_SOURCE[0]}")/expect.sh"

# expect DATA_DIR PATTERN EXE ARGS...: exit 1 and output matching PATTERN.
expect() {
  local dir=$1 pattern=$2
  shift 2
  contract_expect 1 "$pattern" "BTC_DATA_DIR=$dir" -- "$@"
}

expect "$empty" "missing test data: $empty/alexnet-cifar10" "$alexnet" -r prune
expect "$empty" "missing test data: $empty/cifar10/sample_batch.bin" "$alexnet" -r readers
expect "$empty" "missing test data: $empty/cifar10/sample_batch.bin" "$alexnet" -r cpu
expect "$empty" "missing test data: $empty/pointclouds" "$octree" -r cpu
expect "$empty" "missing test data: $empty/pointclouds" "$octree" -r pcd
# The folders exist but hold no data: the readers' own errors.
expect "$hollow" "$hollow/alexnet-cifar10/conv1_w.npy" "$alexnet" -r prune
expect "$hollow" "$hollow/pointclouds: no .pcd files" "$octree" -r cpu
if [ -n "$sched" ]; then
  expect "$empty" "missing test data: $empty/profiles" "$sched" -r oracle
fi
if [ -n "$frontend" ]; then
  expect "$empty" "missing test data: $empty/profiles" "$frontend" -r table
fi
contract_done
