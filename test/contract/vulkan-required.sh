#!/usr/bin/env bash
# Vulkan tests never pass silently without Vulkan. With no Vulkan driver
# (the loader pointed at a driver file that does not exist), every Vulkan
# test (the CUnit suites, octree_gpu_test, gen-run, driver-checks) skips
# (77) and fails (1) under BTC_REQUIRE_VULKAN=1, which
# scripts/test sets; a validation run (BTRT_VK_VALIDATION=1) fails when the
# validation layer is missing (the loader pointed at an empty layer path).
#   vulkan-required.sh HAVE_VULKAN OCTREE_TEST OCTREE_GPU_TEST ALEXNET_TESTS \
#     TEST_RUNTIME [BTC SOURCE_ROOT WORK_DIR]
set -uo pipefail
have_vulkan=$1 octree=$2 octree_gpu=$3 alexnet=$4 runtime=$5
btc=${6:-} src=${7:-} work=${8:-}
unset BTC_REQUIRE_VULKAN BTRT_VK_VALIDATION VK_LAYER_PATH VK_ADD_LAYER_PATH
. "$(dirname "${BASH_SOURCE[0]}")/expect.sh"
no_driver=(VK_ICD_FILENAMES=/nonexistent/icd.json VK_DRIVER_FILES=/nonexistent/icd.json)
no_layer=(BTRT_VK_VALIDATION=1 VK_LAYER_PATH=/nonexistent)
expect() { contract_expect "$@"; } # STATUS PATTERN ENV... -- COMMAND...

for t in "$octree -r vulkan" "$octree -r schedules" "$octree_gpu vulkan" \
         "$alexnet -r vulkan" "$runtime -r vulkan"; do
  # shellcheck disable=SC2086 # t is a command line
  expect 77 'SKIP: ' "${no_driver[@]}" -- $t
  # shellcheck disable=SC2086
  expect 1 'FAIL: .*BTC_REQUIRE_VULKAN=1' "${no_driver[@]}" BTC_REQUIRE_VULKAN=1 -- $t
done
if [ -n "$btc" ]; then
  for t in test/gen/gen-run.sh test/driver/checks.sh; do
    expect 77 'SKIP: ' "${no_driver[@]}" -- "$src/$t" "$btc" "$src" "$work"
    expect 1 'FAIL: .*BTC_REQUIRE_VULKAN=1' "${no_driver[@]}" BTC_REQUIRE_VULKAN=1 -- \
      "$src/$t" "$btc" "$src" "$work"
  done
fi
if [ "$have_vulkan" = 1 ]; then
  for t in "$octree_gpu vulkan" "$runtime -r vulkan" "$octree -r vulkan" "$alexnet -r vulkan"; do
    # shellcheck disable=SC2086
    expect 1 'VK_LAYER_KHRONOS_validation is not installed' "${no_layer[@]}" -- $t
  done
fi
contract_done
