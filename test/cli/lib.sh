# lib.sh: what the command line's shell tests share (cli-options.sh,
# cli-inputs.sh). Source it with btc set; it counts the cases in n and the
# failures in failed (a case of a test's own adds to both):
#   expect RC PATTERN ARGS...  btc ARGS exits RC and its output (stdout and
#                              stderr) contains PATTERN (a fixed string;
#                              "" matches anything)
#   cli_done                   prints the tally; its status, the test's
#                              last, is 0 when every case passed
# It sources test/common/skip.sh (btc_test_host_pu: the host's PU names).
n=0 failed=0
. "$(dirname "${BASH_SOURCE[0]}")/../common/skip.sh" # btc_test_host_pu

expect() {
	local want=$1 pat=$2 out rc
	shift 2
	n=$((n + 1))
	out=$("$btc" "$@" 2>&1)
	rc=$?
	if [ "$rc" != "$want" ] || ! grep -qF -- "$pat" <<<"$out"; then
		echo "FAIL $n: btc $* -> exit $rc (want $want), output:"
		sed 's/^/    /' <<<"$out" | head -20
		echo "    (want the text: $pat)"
		failed=$((failed + 1))
	fi
}

cli_done() {
	echo "$((n - failed))/$n cases passed"
	[ "$failed" = 0 ]
}
