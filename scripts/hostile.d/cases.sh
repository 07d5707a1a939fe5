# The cases of scripts/hostile, sourced by it: c FAMILY NAME LIMIT_S
# [hostile-case options] -- CMD... (see scripts/hostile-case). Names
# available: B (btc), A (the fault app), V (examples/vecadd), T (a table
# of A), cpu (this machine's CPU PU), P and F (A's generated program and
# profiler), job ARGS (the main job on the shared built project J, cache
# JC; jallow allows them), K (sentinels), S (sandbox), R (checkout).

# The commands many cases start from (a case adds its outputs):
vgen="$B gen $V --device host --chunks $cpu:0-2"   # btc gen, one CPU chunk
vrun="$B $V --device host --run --table $T"        # the main job, from scratch
vprof="$B profile $V --device host --max-reps 3"   # btc profile, short
vcheck="$B check $V --device host"
prof3="$F --min-reps 2 --max-reps 3 --quiet"       # the profiler, short
prog8="$P --tasks 8 --quiet"                       # the program, short
# special FAMILY BEFORE AFTER: the input "BEFORE $K/KIND AFTER" a directory,
# a FIFO and /dev/zero (cases is-dir, is-fifo, is-zero-device, 20 s each):
# refused at once, named, never opened in a way that blocks.
special() {
  c "$1" is-dir 20 -- "$2 $K/dir$3"
  c "$1" is-fifo 20 -- "$2 $K/fifo$3"
  c "$1" is-zero-device 20 -- "$2 $K/zero$3"
}

# ---- outputs: special files and links as outputs ------------------------
# A regular file is replaced, a directory written into; a character
# device, FIFO, socket, link or dangling link must be refused and kept.
for t in chardev fifo sock link dangling dir; do
  o=$K/$t
  c outputs "job-report-$t" 30 "${jallow[@]}" -- "$(job --report "$o")"
  if [ $t != dir ]; then # (a directory is what -o and --cache take)
    c outputs "job-o-$t" 30 -- "$vrun -o $o --cache cache"
    c outputs "job-cache-$t" 30 -- "$vrun -o out --cache $o"
    c outputs "gen-o-$t" 30 -- "$vgen -o $o"
    c outputs "profile-o-$t" 30 -- "$vprof -o $o --cache cache"
    c outputs "profile-cache-$t" 30 -- "$vprof -o p --cache $o"
  fi
  c outputs "header-o-$t" 20 -- "$B header $V -o $o"
  c outputs "prog-report-$t" 20 -- "$prog8 --report $o"
  c outputs "prog-trace-$t" 20 -- "$prog8 --trace $o"
  c outputs "prog-failure-$t" 20 --env VECADD_FAULT=segv --ok-sig SEGV -- "$prog8 --failure $o"
  c outputs "profiler-o-$t" 30 -- "$prof3 -o $o"
done
c outputs gen-o-users-project 30 --allow "$K/user" -- "$vgen -o $K/user"
c outputs gen-o-app-link 30 -- \
  "bash -c 'mkdir -p out && ln -sfn $K/dir out/app && exec $vgen -o out'"
c outputs job-report-immutable 30 "${jallow[@]}" -- "$(job --report "$K/immutable")"
c outputs prog-report-immutable 20 -- "$prog8 --report $K/immutable"

# ---- concurrency ----------------------------------------------------------
# Two gens into one new -o: the project is one run's (schedule.yaml and
# pipeline.c agree) and nothing is left half-written.
agree='[ "$(grep -c "^  - index:" pair/schedule.yaml)" = "$(sed -n "s/^#define N_SCHEDULES \([0-9]*\)$/\1/p" pair/pipeline.c)" ] && ! ls -d pair.tmp.* 2> /dev/null'
for i in 1 2 3 4 5 6; do
  c concurrency "gen-pair-$i" 60 --check "$agree" -- \
    "$vgen -o pair" "$B gen $V --device host --table $T -o pair"
done
c concurrency gen-three 60 --check "$agree" -- \
  "$vgen -o pair" "$B gen $V --device host --table $T -o pair" \
  "$B gen $V --device host --chunks $cpu:0-1 -o pair"
# Two main jobs on one output, one cache; a job and a gen on one output.
c concurrency job-pair-one-o 90 "${jallow[@]}" -- "$(job)" "$(job)"
c concurrency job-pair-one-cache 120 --allow "$S/jobcache" -- \
  "$vrun -o a --cache $S/jobcache --tune-budget 2" \
  "$vrun -o b --cache $S/jobcache --tune-budget 2"
c concurrency job-and-gen 90 "${jallow[@]}" -- "$(job)" "$B gen $A --device host --table $T -o $J"
# Two profiles into one cache, one of them --reprofile.
c concurrency profile-pair 120 -- \
  "$vprof --cache cache -o p1" \
  "$vprof --cache cache -o p2 --reprofile"
# Programs: two runs with one --report, --trace; two profilers with one -o.
valid='python3 -c "import json, sys; json.load(open(sys.argv[1]))"'
c concurrency prog-pair-report 30 --check "$valid r.json" -- \
  "$P --tasks 50 --quiet --report r.json" "$P --tasks 50 --quiet --report r.json"
c concurrency prog-pair-trace 30 --check "$valid t.json" -- \
  "$P --tasks 50 --quiet --trace t.json" "$P --tasks 50 --quiet --trace t.json"
c concurrency profiler-pair 60 --check '[ "$(head -c 5 t.csv)" != "" ] && ! ls t.csv.tmp.* 2> /dev/null' -- \
  "$prof3 -o t.csv" "$prof3 -o t.csv"

# ---- interrupts: SIGINT/SIGTERM at each phase, to the pid or its group ---------
for sig in INT TERM; do
  for to in pid group; do
    ok="--signal $sig --to $to --after 0.5"
    c interrupts "profile-$sig-$to" 60 $ok --when-proc 'vecadd-profiler' -- \
      "$B profile $A --device host -D n=200000 --max-reps 100000 --cache cache -o p"
    c interrupts "build-$sig-$to" 60 $ok --when-proc 'ninja|meson' -- \
      "$B $A --device host --run --table $T -o out --cache cache"
    c interrupts "tune-$sig-$to" 60 "${jallow[@]}" $ok --when-proc 'vecadd-pipeline.*--failure' \
      --env VECADD_FAULT=hang -- "$(job --no-race)"
    c interrupts "run-$sig-$to" 60 "${jallow[@]}" $ok --when-proc 'vecadd-pipeline.*--trace' -- \
      "$(job --tune-tasks 5 --tasks 1000000)"
    c interrupts "prog-hang-$sig-$to" 30 $ok --after 1 --env VECADD_FAULT=hang -- \
      "$P --tasks 20 --quiet --failure f.json"
    c interrupts "profiler-hang-$sig-$to" 30 $ok --after 1 --env VECADD_FAULT=hang -- \
      "$F --min-reps 3 --max-reps 5 --quiet -o t.csv"
  done
  c interrupts "prog-fifo-input-$sig" 30 --signal $sig --after 3 --env VECADD_OPEN=1 -- \
    "$P --tasks 4 --quiet --input $K/fifo"
done
c interrupts prog-hup 30 --signal HUP --after 1 --env VECADD_FAULT=hang -- "$P --tasks 20 --quiet"
c interrupts prog-quit 30 --signal QUIT --after 1 --env VECADD_FAULT=hang -- "$P --tasks 20 --quiet"
c interrupts job-kill9-tune 60 "${jallow[@]}" --signal KILL --after 0.3 --when-proc 'vecadd-pipeline' \
  --env VECADD_FAULT=hang -- "$(job)"
# the next job on the killed job's output and cache: no stale temporary file
c interrupts job-after-kill9 90 "${jallow[@]}" \
  --check "! ls $J $JC | grep -q '\.tmp\.'" -- "$(job)"

# ---- file systems: full, read-only, immutable ------------------------------
for fs in full ro; do
  d=$S/fs/$fs
  c filesystems "job-report-$fs" 60 "${jallow[@]}" --allow "$d" -- "$(job --report "$d/r.json")"
  c filesystems "job-o-$fs" 60 --allow "$d" -- "$vrun -o $d/out --cache cache"
  c filesystems "job-cache-$fs" 60 --allow "$d" -- "$vrun -o out --cache $d/c"
  c filesystems "gen-o-$fs" 30 --allow "$d" -- "$vgen -o $d/g"
  c filesystems "profile-cache-$fs" 60 --allow "$d" -- "$vprof --cache $d/c -o p"
  c filesystems "header-o-$fs" 20 --allow "$d" -- "$B header $V -o $d/h.h"
  c filesystems "prog-report-$fs" 20 --allow "$d" -- "$prog8 --report $d/r.json"
  c filesystems "prog-trace-$fs" 20 --allow "$d" -- "$prog8 --trace $d/t.json"
  c filesystems "prog-failure-$fs" 20 --allow "$d" --env VECADD_FAULT=segv --ok-sig SEGV -- \
    "$prog8 --failure $d/f.json"
  c filesystems "profiler-o-$fs" 30 --allow "$d" -- "$prof3 -o $d/t.csv"
done
c filesystems prog-trace-efbig 20 -- "bash -c 'ulimit -f 1; exec $P --tasks 200 --quiet --trace t.json'"
c filesystems profiler-efbig 30 -- "bash -c 'trap \"\" XFSZ; ulimit -f 0; exec $prof3 -o t.csv'"
c filesystems gen-efbig 30 -- "bash -c 'trap \"\" XFSZ; ulimit -f 4; exec $vgen -o g'"

# ---- tables ---------------------------------------------------------------------
# (each written in the case's folder by a bash -c, then given to btc schedule)
tab() { # NAME LIMIT SHELL-THAT-WRITES-t.csv
  c tables "$1" "$2" -- "bash -c '$3; exec $B schedule $V --device host --table t.csv'"
}
hdr='echo stage,pu,mode,mean_ms,stddev_ms,samples'
tab empty 20 ': > t.csv'
tab header-only 20 "$hdr > t.csv"
tab bom 20 "{ printf \"\\357\\273\\277\"; cat $T; } > t.csv"
tab crlf 20 "sed \"s/\$/\\r/\" $T > t.csv"
tab garbage 20 'head -c 4096 /bin/sh > t.csv'
tab nul-bytes 20 "head -c 3000 /dev/zero > t.csv"
tab other-device 20 "sed \"1i # device: pixel7a\" $T > t.csv"
tab other-app 20 "cp $R/data/profiles/pixel7a/octree/interference.csv t.csv"
tab duplicates-200k 60 "{ cat $T; for i in \$(seq 2000); do sed -n 2,101p $T; done; } > t.csv"
tab negative 20 "sed \"2s/,1.000000,/,-1,/\" $T > t.csv"
tab nan 20 "sed \"2s/,1.000000,/,nan,/\" $T > t.csv"
tab inf 20 "sed \"2s/,1.000000,/,inf,/\" $T > t.csv"
tab hex 20 "sed \"2s/,1.000000,/,0x10,/\" $T > t.csv"
tab huge 20 "sed \"2s/,1.000000,/,1e400,/\" $T > t.csv"
tab zero 20 "sed \"s/,1.000000,/,0,/\" $T > t.csv"
tab samples-overflow 20 "sed \"2s/,10\$/,99999999999999999999/\" $T > t.csv"
tab missing-stage 20 "grep -v ^add, $T > t.csv"
tab unknown-pu 20 "sed \"2s/^scale,$cpu,/scale,npu9,/\" $T > t.csv"
tab unknown-mode 20 "sed \"2s/,isolated,/,sideways,/\" $T > t.csv"
tab long-line 20 "{ $hdr; head -c 5000000 /dev/zero | tr \"\\\\0\" x; } > t.csv"
tab many-columns 20 "{ $hdr; printf \"scale,$cpu,isolated\"; for i in \$(seq 5000); do printf ,1; done; echo; } > t.csv"
special tables "$B schedule $V --device host --table" ""
c tables missing 20 -- "$B schedule $V --device host --table nosuch.csv"

# ---- devices ----------------------------------------------------------------------
dev() { # NAME SHELL-THAT-WRITES-d.yaml
  c devices "$1" 20 -- "bash -c '$2; exec $B check $V --device ./d.yaml'"
}
hostdev="$B device host > h.yaml"
dev empty ': > d.yaml'
dev bom "$hostdev; { printf \"\\357\\273\\277\"; cat h.yaml; } > d.yaml"
dev core-57 "$hostdev; sed \"0,/cores: \\[[0-9, ]*\\]/s//cores: [57]/\" h.yaml > d.yaml"
dev core-negative "$hostdev; sed \"0,/cores: \\[[0-9, ]*\\]/s//cores: [-1]/\" h.yaml > d.yaml"
dev core-overflow "$hostdev; sed \"0,/cores: \\[[0-9, ]*\\]/s//cores: [4294967296]/\" h.yaml > d.yaml"
dev no-pus "printf \"device: x\\npus: []\\n\" > d.yaml"
dev duplicate-pu "$hostdev; { cat h.yaml; sed -n \"/^pus:/,\\\$p\" h.yaml | sed 1d; } > d.yaml"
dev unknown-kind "$hostdev; sed \"0,/kind: cpu/s//kind: quantum/\" h.yaml > d.yaml"
dev yaml-bomb "printf \"a: &a [x,x,x,x,x,x,x,x,x]\\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\\npus: *g\\n\" > d.yaml"
dev deep-nesting "python3 -c \"print(\\\"pus: \\\" + \\\"[\\\" * 100000)\" > d.yaml"
dev garbage 'head -c 4096 /bin/sh > d.yaml'
dev not-a-map 'echo "- 1" > d.yaml'
dev freq-hex "$hostdev; echo \"    max_freq_mhz: 0x10\" >> h.yaml; cp h.yaml d.yaml"
special devices "$B check $V --device" ""
c devices missing 20 -- "$B check $V --device ./nosuch.yaml"
c devices unknown-name 20 -- "$B check $V --device nosuchdevice"
c devices core-57-run 60 -- "bash -c '$hostdev; sed \"0,/cores: \\[[0-9, ]*\\]/s//cores: [57]/;0,/pinnable: \\[[0-9, ]*\\]/s//pinnable: [57]/\" h.yaml > d.yaml; exec $B $V --device ./d.yaml --run --table $T -o out --cache cache --tune-budget 2'"

# ---- apps -----------------------------------------------------------------------------
appc() { # NAME SHELL-THAT-CHANGES-app/vecadd.yaml (a copy of examples/vecadd)
  c apps "$1" 30 -- "bash -c 'cp -r $R/examples/vecadd app && cd app && { $2; } && exec $B check vecadd.yaml --device host'"
}
appc bom 'printf "\357\273\277" > b && cat vecadd.yaml >> b && mv b vecadd.yaml'
appc yaml-bomb 'printf "x: &a [y,y,y,y,y,y,y,y,y]\nx2: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nx3: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nx4: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\nx5: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nx6: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\nx7: [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n" >> vecadd.yaml'
appc missing-source 'rm vecadd.c'
appc misspelled-cpu-symbol 'sed -i s/vecadd_add_cpu/vecadd_ad_cpu/ vecadd.yaml'
appc misspelled-io 'sed -i s/^io:\ vecadd_io/io:\ vecadd_oi/ vecadd.yaml'
appc unknown-buffer 'sed -i "s/reads: \[x, y\]/reads: [x, w]/" vecadd.yaml'
appc read-before-write 'sed -i "0,/reads: \[x\]/s//reads: [z]/" vecadd.yaml'
appc no-stages 'sed -i "/^stages:/,/^io:/{/^io:/!d}" vecadd.yaml'
appc param-overflow 'sed -i "s/n: 4096/n: 99999999999999999999999/" vecadd.yaml'
appc param-negative 'sed -i "s/n: 4096/n: -4096/" vecadd.yaml'
appc param-hex 'sed -i "s/n: 4096/n: 0x1000/" vecadd.yaml'
appc param-huge 'sed -i "s/n: 4096/n: 4611686018427387904/" vecadd.yaml'
appc div-zero 'sed -i "s/ceil_div(n, 64)/ceil_div(n, 0)/" vecadd.yaml'
appc shader-no-version 'sed -i /^#version/d add.comp'
appc shader-garbage 'head -c 2000 /bin/sh > add.comp'
appc duplicate-stage 'sed -i "s/name: square/name: add/" vecadd.yaml'
appc deep-nesting 'python3 -c "print(\"stages: \" + \"[\" * 100000)" > vecadd.yaml'
appc invalid-utf8 'printf "\377\376 app: x\n" >> vecadd.yaml'
appc source-is-dir 'rm vecadd.c && mkdir vecadd.c'
appc source-is-fifo 'rm vecadd.c && mkfifo vecadd.c'
appc source-escapes 'sed -i "s|cpu: \[vecadd.c\]|cpu: [../../../../../../../etc/passwd]|" vecadd.yaml'
special apps "$B check" " --device host"
c apps missing 20 -- "$B check nosuch.yaml --device host"
c apps gen-misspelled 60 -- \
  "bash -c 'cp -r $R/examples/vecadd app && sed -i s/vecadd_add_cpu/vecadd_ad_cpu/ app/vecadd.yaml && exec $B gen app/vecadd.yaml --device host --chunks $cpu:0-2 -o out'"

# ---- inputs: the programs' input files ---------------------------------------------------
for what in missing dir fifo zero dangling; do
  case $what in missing) in=nosuch ;; *) in=$K/$what ;; esac
  c inputs "vecadd-$what" 20 --signal TERM --after 3 --env VECADD_OPEN=1 -- "$P --tasks 4 --quiet --input $in"
done
# octree (PCD files or folders) and alexnet-dense (CIFAR-10 batches):
# their generated programs (built at setup) on broken inputs
pcd=$R/data/pointclouds/office1.pcd
for k in empty truncated garbage header-lies huge-count nan-points empty-dir dir-of-garbage; do
  case $k in
    empty) mk=': > in' ;;
    truncated) mk="head -c 700 $pcd > in" ;;
    garbage) mk='head -c 5000 /bin/sh > in' ;;
    header-lies) mk="sed \"s/^POINTS .*/POINTS 999999999/\" $pcd > in" ;;
    huge-count) mk="sed \"s/^POINTS .*/POINTS 18446744073709551615/;s/^WIDTH .*/WIDTH 18446744073709551615/\" $pcd > in" ;;
    nan-points) mk="sed \"/^DATA/,\\\$ s/^[-0-9.e]* /nan /\" $pcd > in" ;;
    empty-dir) mk='mkdir in' ;;
    dir-of-garbage) mk='mkdir in && head -c 3000 /bin/sh > in/a.pcd && : > in/b.pcd' ;;
  esac
  c inputs "pcd-$k" 30 -- "bash -c '$mk; exec $OCT --tasks 4 --quiet --input in'"
done
for k in empty truncated dir garbage-labels odd-size; do
  case $k in
    empty) mk=': > in' ;;
    truncated) mk="head -c 5000 $R/data/cifar10/sample_batch.bin > in" ;;
    dir) mk='mkdir in' ;;
    garbage-labels) mk="python3 -c \"import sys; sys.stdout.buffer.write(bytes([250] + [7] * 3072) * 4)\" > in" ;;
    odd-size) mk="head -c 3074 $R/data/cifar10/sample_batch.bin > in" ;;
  esac
  c inputs "cifar-$k" 30 -- "bash -c '$mk; exec $ALEX --tasks 4 --quiet --input in'"
done
c inputs pcd-fifo 30 --signal TERM --after 3 -- "$OCT --tasks 4 --quiet --input $K/fifo"
c inputs cifar-zero-device 30 --signal TERM --after 3 -- "$ALEX --tasks 4 --quiet --input $K/zero"

# ---- option values ---------------------------------------------------------------------------
opt() { c options "$1" 30 "${jallow[@]}" -- "$2"; }
gen="$B gen $V --device host -o out"
opt chunks-wrap "$gen --chunks $cpu:0-4294967298"
opt chunks-index-wrap "$gen --chunks ${cpu}[4294967297]:0-2"
opt chunks-negative "$gen --chunks $cpu:-1-2"
opt chunks-empty "$gen --chunks ''"
opt chunks-hex "$gen --chunks $cpu:0x0-0x2"
opt chunks-huge-list "$gen --chunks $(python3 -c "print(','.join(['$cpu:0-0'] * 3000))")"
opt top-zero "$gen --table $T --top 0"
opt top-negative "$gen --table $T --top -1"
opt top-overflow "$gen --table $T --top 99999999999999999999"
opt top-huge "$gen --table $T --top 2000000000"
opt cpu-groups-overflow "$vcheck --cpu-groups 4294967297"
opt cpu-groups-zero "$vcheck --cpu-groups 0"
opt define-overflow "$vcheck -D n=99999999999999999999"
opt define-negative "$vcheck -D n=-1"
opt define-empty "$vcheck -D n="
opt define-unknown "$vcheck -D nosuch=1"
opt budget-negative "$(job --tune-budget -1)"
opt budget-hex "$(job --tune-budget 0x10)"
opt budget-nan "$(job --tune-budget nan)"
opt budget-inf "$(job --tune-budget 1e999)"
opt factor-zero "$(job --run-timeout-factor 0)"
opt factor-empty "$(job --run-timeout-factor '')"
opt seed-overflow "$(job --seed 999999999999999999999999)"
opt tasks-negative "$(job --tasks -5)"
opt max-reps-overflow "$B profile $V --device host --max-reps 99999999999999999999 --cache cache -o p"
opt prog-tasks-negative "$P --tasks -1 --quiet"
opt prog-tasks-overflow "$P --tasks 99999999999999999999999 --quiet"
opt prog-schedule-out "$P --tasks 4 --quiet --schedule 999"
opt prog-schedule-negative "$P --tasks 4 --quiet --schedule -1"
opt prog-unknown "$P --no-such-option"
opt profiler-reps-zero "$F --min-reps 0 --max-reps 0 --quiet -o t.csv"
opt profiler-reps-inverted "$F --min-reps 9 --max-reps 2 --quiet -o t.csv"
opt unknown-command "$B frobnicate"
opt missing-value "$B gen $V --device"
opt long-argument "$B check $V --device $(head -c 100000 /dev/zero | tr '\0' x)"

# ---- misbehaving kernels -----------------------------------------------------------------------
# the program and the profiler alone (a hang is stopped with SIGTERM after
# 3 s), btc profile (the profiler bounded by 0.25 x 120 s) and the main job
# (a hang must be bounded by btc).
for f in hang segv abort exit0 _exit0 stack alloc fpe; do
  case $f in
    segv|alloc|stack) s=SEGV ;; abort) s=ABRT ;; fpe) s=FPE ;; *) s= ;;
  esac
  stop=(); [ $f = hang ] && stop=(--signal TERM --after 3)
  named=(--named f.json); [ $f = _exit0 ] || [ $f = hang ] && named=()
  c kernels "prog-$f" 30 --env VECADD_FAULT=$f ${s:+--ok-sig $s} "${named[@]}" "${stop[@]}" -- \
    "$P --tasks 20 --quiet --failure f.json"
  c kernels "profiler-$f" 30 --env VECADD_FAULT=$f ${s:+--ok-sig $s} "${named[@]}" "${stop[@]}" -- \
    "$F --min-reps 3 --max-reps 5 --quiet -o t.csv --failure f.json"
  c kernels "btc-profile-$f" 90 --env VECADD_FAULT=$f -- \
    "$B profile $A --device host --max-reps 5 --run-timeout-factor 0.25 --cache cache -o p"
  c kernels "btc-tune-$f" 90 "${jallow[@]}" --env VECADD_FAULT=$f -- "$(job --run-timeout-factor 1)"
done
# --tune-budget bounds the tuning of a hanging kernel (default factor)
c kernels btc-tune-hang-budget 120 "${jallow[@]}" --env VECADD_FAULT=hang -- "$(job --tune-budget 2)"

# ---- missing files, permissions (as an unprivileged user) ------------------------------------------
nob="setpriv --reuid=65534 --regid=65534 --clear-groups"
c files missing-app 20 -- "$B nosuch.yaml --device host --run"
c files missing-table 20 -- "$B gen $V --device host --table nosuch.csv -o out"
c files missing-template-dir 30 --env BTC_TEMPLATE_DIR=/nonexistent -- "$vgen -o out"
c files missing-device-dir 20 --env BTC_DEVICE_DIR=/nonexistent -- "$vcheck"
c files root-is-file 20 --env BTC_ROOT=$K/victim -- "$vcheck"
c files app-under-file 20 -- "$B check $K/victim/app.yaml --device host"
c files nobody-o-denied 30 -- "$nob $vgen -o $K/dir/out"
c files nobody-report-denied 30 -- "$nob $vrun -o /nonexistent/out --report $K/dir/r.json"
c files nobody-cache-denied 30 -- "$nob $vprof --cache $K/dir/cache -o /nonexistent/p"
c files nobody-prog-report 20 -- "$nob $P --tasks 4 --quiet --report $K/dir/r.json"
c files nobody-profiler-o 20 -- "$nob $prof3 -o $K/dir/t.csv"
c files unreadable-app 20 -- "bash -c 'cp $V a.yaml && chmod 000 a.yaml && chmod 711 . && exec $nob $B check a.yaml --device host'"
