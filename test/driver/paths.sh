#!/usr/bin/env bash
# A device named "../../../../victim" must not make btc write or delete
# outside its output and cache directories: `btc gen --build` (default
# project dir, and with -o), `btc profile` (cache file name) and the main
# job all exit non-zero, and nothing appears outside the working
# directory's build/ (where a victim/meson.build used to be overwritten).
set -euo pipefail
btc=$1 src=$2 work=$3
. "$src/test/driver/lib.sh"
rm -rf "$work"
cwd=$work/a/b/c/d
# Where the default project dir build/btc/vecadd-../../../../victim leads
# (vecadd-.. is one component, three .. follow): a project of its own there.
victim=$cwd/victim
mkdir -p "$cwd" "$victim"
echo "project('victim')" > "$victim/meson.build"
"$btc" device host | sed 's|^device: .*|device: "../../../../victim"|' > "$work/victim.yaml"
grep -q '^device: "../../../../victim"' "$work/victim.yaml"
cpu=$(btc_test_host_pu cpu)
app=$src/examples/vecadd/vecadd.yaml
# Every path under $work but the output dir and the logs, and the victim's bytes.
tree() { (cd "$work" && find . -path ./a/b/c/d/build -prune -o ! -name '*.log' -print | sort; md5sum "$victim/meson.build"); }
before=$(tree)

run() { # NAME ARGS...: must exit non-zero
  local name=$1 rc=0
  shift
  (cd "$cwd" && "$btc" "$@") > "$work/$name.log" 2>&1 || rc=$?
  [ $rc -ne 0 ] || fail "$name: exit status 0" "$work/$name.log"
  grep -q "error: .*victim" "$work/$name.log" || fail "$name: no error naming the device" "$work/$name.log"
  after=$(tree)
  [ "$before" = "$after" ] || { diff <(echo "$before") <(echo "$after"); fail "$name: files changed outside the output dir"; }
  echo "ok: $name: exit $rc, nothing written outside"
}
run gen gen "$app" --device "$work/victim.yaml" --chunks "$cpu:0-2" --build
run profile profile "$app" --device "$work/victim.yaml" --cache "$cwd/cache"
run job "$app" --device "$work/victim.yaml" --run --cache "$cwd/cache"
run gen-o gen "$app" --device "$work/victim.yaml" --chunks "$cpu:0-2" -o out --build
