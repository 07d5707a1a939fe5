#!/usr/bin/env bash
# Provenance without paths: the same inputs give the same project bytes
# whether the table (and app, device) are named by relative or absolute
# paths and from whichever working directory; schedule.yaml names the
# table by file name and SHA-256, and no generated file holds an absolute
# path of this machine.
set -euo pipefail
btc=$1 src=$2 work=$3
. "$src/test/driver/lib.sh"
rm -rf "$work" && mkdir -p "$work/one/data" "$work/two"
app=examples/vecadd/vecadd.yaml
host_table "$btc" "$src/$app" "$work/one/data/vecadd.csv"
"$btc" device host > "$work/one/data/host.yaml"
sha=$(sha256sum "$work/one/data/vecadd.csv" | cut -d' ' -f1)

# Relative paths from one/, absolute paths from two/, into one output dir.
(cd "$work/one" && "$btc" gen "$src/$app" --device data/host.yaml --table data/vecadd.csv \
   -o "$work/out" > "$work/rel.log" 2>&1) || fail "relative" "$work/rel.log"
mv "$work/out" "$work/rel"
(cd "$work/two" && "$btc" gen "$src/$app" --device "$work/one/data/host.yaml" \
   --table "$work/one/data/vecadd.csv" -o "$work/out" > "$work/abs.log" 2>&1) || fail "absolute" "$work/abs.log"
mv "$work/out" "$work/abs"
diff -r --exclude=build "$work/rel" "$work/abs" || fail "the two projects differ"
grep -q "^table: {file: \"vecadd.csv\", sha256: $sha, " "$work/abs/schedule.yaml" ||
  fail "schedule.yaml does not name the table by name and SHA-256" "$work/abs/schedule.yaml"
if grep -rn --exclude-dir=build -e "$work" -e "$src" "$work/abs"; then
  fail "a generated file holds an absolute path"
fi
echo "ok: relative and absolute table paths, two working directories: identical bytes"
