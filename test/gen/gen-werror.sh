#!/usr/bin/env bash
# Generated code for every device of the library (and the test board) and
# several schedules per app, farms and core splits among them, compiles
# with -Wall -Wextra -Werror.
set -euo pipefail
btc=$1 src=$2 work=$3
cc=${CC:-cc}
rm -rf "$work" && mkdir -p "$work"
stages() { "$btc" check "$1" | sed -n 's/.*: \([0-9]*\) stages.*/\1/p'; }
n_ok=0
for app in apps/octree.yaml apps/alexnet-dense.yaml apps/alexnet-sparse.yaml examples/vecadd/vecadd.yaml; do
  n=$(stages "$src/$app")
  last=$((n - 1)) half=$((n / 2))
  for dev in pixel7a oneplus11 jetson-orin-nano jetson-orin-nano-lp testbox; do
    case $dev in
      pixel7a|oneplus11)
        specs=("little:0-$((half - 1)),big:$half-$last" "medium:0,big:1-$((last - 1)),gpu:$last" "gpu:0-$((half - 1)),little:$half-$last"
               "{medium,big}:0-$((half - 1)),little[1]:$half-$((last - 1)),little[2]:$last") ;;
      jetson*)
        specs=("cpu:0-$((half - 1)),gpu:$half-$last" "gpu:0-$((half - 1)),cpu:$half-$last"
               "cpu[2]:0-$((half - 1)),cpu[2]:$half-$last") ;;
      testbox)
        specs=("little:0,big:1-$last" "little:0,cuda:1-$last" "{little,big}:0-$last"
               "little[1]:0,{big,cuda}:1-$((last - 1)),little[1]:$last") ;;
    esac
    devarg=$dev
    [ "$dev" = testbox ] && devarg=$src/test/gen/data/testbox.yaml
    out=$work/$(basename "$app" .yaml)-$dev
    chunk_args=()
    for s in "${specs[@]}"; do chunk_args+=(--chunks "$s"); done
    "$btc" gen "$src/$app" --device "$devarg" "${chunk_args[@]}" -o "$out" > /dev/null
    incs=(-I "$out" -I "$out/btrt/include")
    while IFS= read -r d; do incs+=(-I "$d"); done < <(find "$out/app" -type d)
    for f in pipeline.c profiler.c; do
      for cuda in 0 1; do
        "$cc" -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror -fsyntax-only -fopenmp \
          -DPIPELINE_HAVE_CUDA=$cuda "${incs[@]}" "$out/$f"
        n_ok=$((n_ok + 1))
      done
    done
  done
done
# With a profiling table: the cost model compiled in (adapt_model), with
# F, X and T_io (the GPU machine's table) and without (a reference table).
for t in "octree $src/test/gen/data/h100box.yaml $src/docs/results/h100-model/octree-table.csv" \
         "octree pixel7a $src/data/profiles/pixel7a/octree/interference.csv"; do
  read -r app dev table <<< "$t"
  out=$work/model-$app-$(basename "$dev" .yaml)
  "$btc" gen "$src/apps/$app.yaml" --device "$dev" --table "$table" --top 3 -o "$out" > /dev/null
  grep -q "^#define PIPELINE_HAVE_MODEL 1" "$out/pipeline.c"
  incs=(-I "$out" -I "$out/btrt/include")
  while IFS= read -r d; do incs+=(-I "$d"); done < <(find "$out/app" -type d)
  for cuda in 0 1; do
    "$cc" -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror -fsyntax-only -fopenmp \
      -DPIPELINE_HAVE_CUDA=$cuda "${incs[@]}" "$out/pipeline.c"
    n_ok=$((n_ok + 1))
  done
done
echo "ok: $n_ok generated files compiled with -Wall -Wextra -Werror"
