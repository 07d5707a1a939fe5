# tsan.sh: what the tests of generated programs under ThreadSanitizer
# share (gen-workload-tsan, gen-joint-tsan, gen-joint-cores-tsan). Source
# it with btc, src and work set:
#   . "$src/test/gen/tsan.sh"
#   tsan_start NAME   a fresh $work, then tsan_need_vulkan and tsan_need_cc
#   tsan_need_vulkan NAME  SKIP (77) without a Vulkan device, not even
#                     llvmpipe (a failure under BTC_REQUIRE_VULKAN=1)
#   tsan_need_cc NAME SKIP (77) when the C compiler cannot link
#                     -fsanitize=thread programs
#   tsan_options      the TSAN_OPTIONS of a run: stop at the first report
#                     with exit status 66; only Mesa's driver and its LLVM
#                     JIT suppressed (data/tsan-mesa.supp)
#   tsan_setup        the meson options of a generated project built
#                     under ThreadSanitizer
. "$src/test/common/skip.sh"

tsan_options="halt_on_error=1 exitcode=66 second_deadlock_stack=1 suppressions=$src/test/gen/data/tsan-mesa.supp"
tsan_setup=(-Db_sanitize=thread -Dbuildtype=debugoptimized)

tsan_need_vulkan() {
  btc_test_need_vulkan "$1"
}

tsan_need_cc() {
  if ! echo 'int main(void) { return 0; }' | cc -fsanitize=thread -x c - -o "$work/t" 2> /dev/null; then
    echo "$1: SKIP: the C compiler cannot link -fsanitize=thread programs" >&2
    exit 77
  fi
}

tsan_start() {
  rm -rf "$work" && mkdir -p "$work"
  tsan_need_vulkan "$1"
  tsan_need_cc "$1"
}
