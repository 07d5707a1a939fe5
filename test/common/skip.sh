# skip.sh: the shell side of btc_test_skip (testutil.h), for test scripts:
#   . "$src/test/common/skip.sh"
#   btc_test_skip VULKAN "gen-run" "no Vulkan device"
#   btc_test_need_vulkan "gen-run" "cannot run the Vulkan pipelines"
#                                       (the same, unless btc finds one)
#   gpu=$(btc_test_host_pu vulkan)      (the host's first Vulkan PU)
# exits 77 (meson: SKIP), or 1 when $BTC_REQUIRE_<HW> (BTC_REQUIRE_VULKAN,
# BTC_REQUIRE_CUDA, BTC_REQUIRE_CROSS) is set and not "0": scripts/test
# requires Vulkan and the cross toolchain, so they never skip there.
# btc_test_host_pu KIND (with $btc set): the name of the first PU of kind
# KIND (cpu, vulkan, cuda) that `btc device host` lists; empty when none.
btc_test_host_pu() {
  "$btc" device host | awk -v kind="$1" '/name:/ {n = $3} $1 == "kind:" && $2 == kind {print n; exit}'
}

# btc_test_have_vulkan (with $btc set): true when `btc device host` lists
# a Vulkan PU (llvmpipe counts).
btc_test_have_vulkan() {
  [ -n "$(btc_test_host_pu vulkan)" ]
}

# btc_test_need_vulkan NAME [WHAT] (with $btc set): btc_test_skip VULKAN
# unless btc_test_have_vulkan; WHAT, what the test cannot do without one,
# ends the message.
btc_test_need_vulkan() {
  if ! btc_test_have_vulkan; then
    btc_test_skip VULKAN "$1" "no Vulkan device (not even llvmpipe)${2:+: $2}"
  fi
}

btc_test_skip() {
  local var="BTC_REQUIRE_$1" name=$2 why=$3
  local v=${!var:-}
  if [ -n "$v" ] && [ "$v" != 0 ]; then
    echo "$name: FAIL: $why ($var=$v: this hardware must be there)" >&2
    exit 1
  fi
  echo "$name: SKIP: $why" >&2
  exit 77
}
