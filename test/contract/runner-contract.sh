#!/usr/bin/env bash
# The shared CUnit runner's exit status (test/common/cunit_main.h), one
# outcome at a time: every way a test can go wrong exits non-zero, and
# only absent hardware (outside BTC_REQUIRE_*) exits 77.
#   runner-contract.sh RUNNER_CONTRACT_EXE HAVE_VULKAN(0|1)
set -uo pipefail
exe=$1 have_vulkan=$2
unset BTC_REQUIRE_VULKAN BTC_REQUIRE_CUDA BTC_REQUIRE_CROSS BTRT_VK_VALIDATION BTC_DATA_DIR
. "$(dirname "${BASH_SOURCE[0]}")/expect.sh"

# expect STATUS PATTERN [ENV=...] -- ARGS: the runner with ARGS exits
# STATUS, its output matching the extended regex PATTERN.
expect() {
  local want=$1 pattern=$2 envs=()
  shift 2
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  contract_expect "$want" "$pattern" "${envs[@]}" -- "$exe" "$@"
}

expect 0 'PASS: 1 tests' -- -r pass
expect 0 'PASS: 1 tests' -- -r pass -t passes
expect 1 'FAIL: .* 1 failed assertions' -- -r assert
expect 1 'FAIL: 1 suite init' -- -r init
expect 1 'FAIL: 0 suite init and 1 cleanup failures' -- -r cleanup
expect 1 'missing test data: .*/runner-contract/no-such-file.bin' -- -r data
expect 1 'missing test data: /nonexistent-btc-data/runner-contract/no-such-file.bin' \
  BTC_DATA_DIR=/nonexistent-btc-data -- -r data
expect 1 'FAIL: .* of 0 tests failed' -- -r empty
expect 1 'cannot register suite register' -- -r register
expect 1 'suite unnamed registered nothing under its name' -- -r unnamed
expect 77 'SKIP: no Vulkan device' -- -r vulkan
expect 1 'FAIL: no Vulkan device .*BTC_REQUIRE_VULKAN=1' BTC_REQUIRE_VULKAN=1 -- -r vulkan
expect 77 'SKIP: no Vulkan device' BTC_REQUIRE_VULKAN=0 -- -r vulkan
expect 77 'SKIP: no CUDA device' BTC_REQUIRE_VULKAN=1 -- -r cuda
expect 1 'FAIL: no CUDA device .*BTC_REQUIRE_CUDA=1' BTC_REQUIRE_CUDA=1 -- -r cuda
expect 1 'cannot register suite register' -- # every suite: one failure fails all
expect 2 "no suite 'nosuch'" -- -r nosuch
expect 2 "no test 'nosuch' in suite 'pass'" -- -r pass -t nosuch
expect 2 'usage' -- -t passes
expect 2 'usage' -- -x
expect 2 'usage' -- extra-argument
expect 0 '^pass$' -- -l
if [ "$have_vulkan" = 1 ]; then
  # A validation run without its validator is a failure, before any test.
  expect 1 'BTRT_VK_VALIDATION=1 but VK_LAYER_KHRONOS_validation is not installed' \
    BTRT_VK_VALIDATION=1 VK_LAYER_PATH=/nonexistent -- -r pass
  expect 0 'PASS: 1 tests' BTRT_VK_VALIDATION=1 -- -r pass
fi
contract_done
