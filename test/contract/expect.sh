# expect.sh: what the contract tests share (runner-contract.sh,
# missing-data.sh, vulkan-required.sh). Source it; it counts the failed
# cases in fails:
#   contract_expect STATUS PATTERN [ENV=VALUE...] -- COMMAND...
#       COMMAND, run with the ENV settings added to the environment, exits
#       STATUS and its output (stdout and stderr) matches the extended
#       regex PATTERN; prints "ok: ..." or "FAIL: ..." with the output
#   contract_done
#       prints the count of failures; its status, the test's last, is 0
#       when there were none
fails=0

contract_expect() {
  local want=$1 pattern=$2 log got
  shift 2
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  log=$(mktemp)
  env "${envs[@]}" "$@" > "$log" 2>&1
  got=$?
  if [ "$got" -ne "$want" ] || ! grep -Eq "$pattern" "$log"; then
    echo "FAIL: ${envs[*]} $*: exit $got (want $want), output must match /$pattern/:"
    sed 's/^/    /' "$log" | tail -40
    fails=$((fails + 1))
  else
    echo "ok: ${envs[*]} $(basename "$1") ${*:2}: exit $got, /$pattern/"
  fi
  rm -f "$log"
}

contract_done() {
  echo "$fails failures"
  [ "$fails" -eq 0 ]
}
