# Shared by the driver's shell tests: a profiling table with equal times
# for every stage of an app on every PU of this machine (the tests are
# about the driver, not the schedule), and JSON field access.

# host_table BTC APP.yaml OUT.csv
host_table() {
  local btc=$1 app=$2 out=$3 pus stages
  pus=$("$btc" device host | awk '$1 == "-" && $2 == "name:" {print $3}')
  stages=$("$btc" check "$app" | awk '/^stages:/ {s = 1; next} s && $1 ~ /^[0-9]+$/ {print $2}')
  {
    echo "stage,pu,mode,mean_ms,stddev_ms,samples"
    for m in isolated interference; do
      for s in $stages; do
        for p in $pus; do echo "$s,$p,$m,1.000000,0.100000,10"; done
      done
    done
  } > "$out"
}

# json FILE PYTHON-EXPR: prints the expression over the parsed file `r`.
json() {
  python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

. "$(dirname "${BASH_SOURCE[0]}")/../common/skip.sh"

# fail MESSAGE [LOG]: prints the log and the message, exits 1.
fail() {
  [ -n "${2:-}" ] && [ -f "$2" ] && cat "$2"
  echo "FAIL: $1"
  exit 1
}
