#!/usr/bin/env bash
# Co-run profiling (issue 27; docs/scheduler.md "Several apps"): `btc
# profile A.yaml B.yaml --device host` on real data (octree's Kinect cloud,
# alexnet-dense's CIFAR-10 images) writes each app's @corun rows for every
# ordered pair of distinct PUs (the CPU and llvmpipe's Vulkan here), with
# the `# corun_with:` line naming the co-runner; the table loader reads
# them back (btc schedule over both apps says "co-run measured"); then
# with --same-pu probe, the same-PU factor of llvmpipe's GPU measured by
# the joint program's --share-probe into both tables (`@share,vulkan*2`
# and `# share_with:`), which btc schedule --same-pu probe reads
# ("same-PU factor measured") and btc schedule by default does not
# (factor 1); a second run finds them cached; by default btc profile
# runs no probe; an interrupt during the measurement exits 130,
# leaves no occupant running and the table as it was. No timing is
# asserted: a factor is only finite and within a sane range.
set -euo pipefail
btc=$1 src=$2 work=$3
. "$src/test/driver/lib.sh"
btc_test_need_vulkan driver-corun
rm -rf "$work" && mkdir -p "$work"
cd "$work"
oct=$src/apps/octree.yaml alex=$src/apps/alexnet-dense.yaml
prof() { "$btc" profile "$oct" "$alex" --device host --cache cache --max-reps 2 "$@"; }
here=$(pwd -P)
# occupants: profilers running with --occupy in this test's directory
occupants() {
	local p
	for p in $(pgrep -f -- "-profiler --occupy" || true); do
		[ "$(readlink "/proc/$p/cwd" 2>/dev/null)" = "$here" ] && echo "$p"
	done
	return 0
}

prof --same-pu probe > first.log 2>&1 || fail "btc profile A B: exit status $?" first.log
for line in "corun octree on cpu while alexnet_dense occupies vulkan: x" \
	"corun octree on vulkan while alexnet_dense occupies cpu: x" \
	"corun alexnet_dense on cpu while octree occupies vulkan: x" \
	"corun alexnet_dense on vulkan while octree occupies cpu: x"; do
	grep -q "profile: $line" first.log || fail "no progress line '$line'" first.log
done
[ -z "$(occupants)" ] || fail "an occupant outlived btc profile: $(occupants)"

# The rows: every ordered pair, a finite factor in a sane range, n > 0.
for app in octree:alexnet_dense alexnet_dense:octree; do
	name=${app%%:*} other=${app##*:}
	t=$(ls cache/"$name"-host-*.csv)
	grep -qx "# corun_with: $other" "$t" || fail "$t: no '# corun_with: $other'" "$t"
	for pair in cpu/vulkan vulkan/cpu; do
		row=$(grep "^@corun,$pair,isolated," "$t") || fail "$t: no @corun row for $pair" "$t"
		python3 - "$row" <<'EOF' || fail "$t: bad row '$row'"
import math, sys
f = sys.argv[1].split(",")
factor, sd, n = float(f[3]), float(f[4]), int(f[5])
assert math.isfinite(factor) and 0.1 < factor < 100, factor
assert math.isfinite(sd) and sd >= 0, sd
assert n > 0, n
EOF
	done
	[ "$(grep -c '^@corun,' "$t")" = 2 ] || fail "$t: not 2 @corun rows" "$t"
done
echo "ok: @corun rows of both apps, every ordered pair"

# The same-PU factor of the GPU (docs/scheduler.md "Same-PU capacity"):
# the joint program's --share-probe, its @share row in both tables.
grep -q "^share-probe: 2 streams together on vulkan: x" first.log ||
	fail "no share-probe line" first.log
grep -q "^profile: same-PU factor: @share rows (isolated; with octree\*1,alexnet_dense\*1" \
	first.log || fail "no same-PU factor line" first.log
for name in octree alexnet_dense; do
	t=$(ls cache/"$name"-host-*.csv)
	grep -qx "# share_with: octree\*1,alexnet_dense\*1" "$t" || fail "$t: no '# share_with:'" "$t"
	row=$(grep "^@share,vulkan\*2,isolated," "$t") || fail "$t: no @share row" "$t"
	python3 - "$row" <<'EOF' || fail "$t: bad row '$row'"
import math, sys
f = sys.argv[1].split(",")
factor, sd, n = float(f[3]), float(f[4]), int(f[5])
assert math.isfinite(factor) and 0.05 < factor < 20, factor
assert math.isfinite(sd) and sd >= 0 and n == 3, (sd, n)
EOF
done
echo "ok: @share rows in both tables"

# Read back by the table loader: the joint schedule uses them.
"$btc" schedule "$oct" "$alex" --device host --cache cache --top 1 > sched.log 2>&1 ||
	fail "btc schedule A B: exit status $?" sched.log
[ "$(grep -c 'co-run measured (its @corun rows, isolated, against ' sched.log)" = 2 ] ||
	fail "btc schedule: not 'co-run measured' for both apps" sched.log
"$btc" schedule "$oct" "$alex" --device host --cache cache --top 1 --format json > sched.json ||
	fail "btc schedule --format json: exit status $?"
[ "$(json sched.json '[a["corun"] for a in r["apps"]]')" = "['measured', 'measured']" ] ||
	fail "JSON: corun not measured for both apps" sched.json
# by default (--same-pu none) the @share rows are read but not planned with
grep -q "^  same-PU factor none (--same-pu none: factor 1)" sched.log ||
	fail "btc schedule: the default planned with a same-PU factor" sched.log
[ "$(json sched.json '(r["same_pu"], r["same_pu_factor"])')" = "('none', None)" ] ||
	fail "JSON: the default has a same_pu_factor" sched.json
"$btc" schedule "$oct" "$alex" --device host --cache cache --top 1 --same-pu probe > sched-p.log 2>&1 ||
	fail "btc schedule A B --same-pu probe: exit status $?" sched-p.log
"$btc" schedule "$oct" "$alex" --device host --cache cache --top 1 --same-pu probe --format json \
	> sched-p.json || fail "btc schedule --same-pu probe --format json: exit status $?"
grep -q "^  same-PU factor measured: vulkan x[0-9.]* at 2 streams; octree's @share rows" sched-p.log ||
	fail "btc schedule --same-pu probe: no measured same-PU factor" sched-p.log
[ "$(json sched-p.json 'r["same_pu"], sorted(r["same_pu_factor"]["kappa"])')" = "('probe', ['vulkan'])" ] ||
	fail "JSON: no same_pu_factor" sched-p.json
echo "ok: btc schedule over both apps: co-run measured; the same-PU factor with --same-pu probe only"

# Cached: nothing measured again, the tables unchanged.
sum=$(cat cache/*.csv | sha256sum)
prof --same-pu probe > second.log 2>&1 || fail "second btc profile A B: exit status $?" second.log
[ "$(grep -c 'cached rows (measured against' second.log)" = 2 ] ||
	fail "second run: the rows were not taken from the cache" second.log
! grep -q "occupies" second.log || fail "second run measured again" second.log
grep -q "same-PU factor: cached @share rows" second.log ||
	fail "second run: the @share rows were not taken from the cache" second.log
[ "$(cat cache/*.csv | sha256sum)" = "$sum" ] || fail "second run changed a table"
echo "ok: cached"

# The default (--same-pu none) runs no probe: the tables as they were.
prof > third.log 2>&1 || fail "third btc profile A B: exit status $?" third.log
grep -q "^profile: same-PU factor: not measured (--same-pu none, the default" third.log ||
	fail "default: no 'not measured' line" third.log
! grep -q "^share-probe:" third.log || fail "default: btc profile ran the probe" third.log
[ "$(cat cache/*.csv | sha256sum)" = "$sum" ] || fail "default run changed a table"
echo "ok: the default runs no probe"

# Interrupted while an occupant runs: exit 130, no occupant left, the
# table as it was (its old rows; the corun_with line dropped to force a
# measurement).
t=$(ls cache/octree-host-*.csv)
sed -i '/^# corun_with:/d' "$t"
sum=$(sha256sum < "$t")
# (btc itself in the background, not a function's subshell: $! is btc)
"$btc" profile "$oct" "$alex" --device host --cache cache --max-reps 100 > int.log 2>&1 & pid=$!
for _ in $(seq 1200); do
	[ -n "$(occupants)" ] && break
	kill -0 $pid 2>/dev/null || break
	sleep 0.05
done
rc=0
if [ -n "$(occupants)" ]; then
	kill -INT $pid
	wait $pid || rc=$?
	[ $rc = 130 ] || fail "interrupted: exit status $rc, not 130" int.log
	sleep 0.5
	[ -z "$(occupants)" ] || fail "an occupant outlived the interrupt: $(occupants)" int.log
	[ "$(sha256sum < "$t")" = "$sum" ] || fail "the interrupt changed $t" int.log
	echo "ok: interrupted: 130, no occupant left, table unchanged"
else
	wait $pid || rc=$?
	fail "no occupant seen during the measurement (exit status $rc)" int.log
fi
