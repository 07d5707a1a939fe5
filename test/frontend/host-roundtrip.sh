#!/usr/bin/env bash
# `btc device host` prints a description that `btc check --device` accepts,
# also with its cores split into two CPU PUs (where there are two cores).
set -euo pipefail
btc=$1 src=$2 work=$3
"$btc" device host > "$work/host.yaml"
"$btc" check "$src/apps/octree.yaml" --device "$work/host.yaml" | tail -3
if [ "$(nproc)" -lt 2 ]; then
  echo "one core: no CPU groups to check"
  exit 0
fi
"$btc" device host --cpu-groups 2 > "$work/host2.yaml"
grep -q "name: cpu1\|name: little1\|name: big1" "$work/host2.yaml"
"$btc" check "$src/apps/octree.yaml" --device "$work/host2.yaml" | tail -3

# --format json: the same description (JSON is YAML: without "service",
# btc reads it back the same), and the generated program's service cores: none on a device
# without a GPU; on one with a GPU and CPU PUs of 10 and 8 cores, the last
# two of the larger (btc_gen_service_cores; docs/runtime.md, "Placement").
"$btc" device "$work/host.yaml" --format json > "$work/host.json"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); del d["service"]; json.dump(d, open(sys.argv[2], "w"))' \
  "$work/host.json" "$work/host-desc.json"
"$btc" device "$work/host-desc.json" > "$work/host-again.yaml"
cmp "$work/host.yaml" "$work/host-again.yaml"
cat > "$work/svc.yaml" <<'YAML'
device: svc
os: linux
arch: x86_64
pus:
  - name: small
    kind: cpu
    cores: [10, 11, 12, 13, 14, 15, 16, 17]
  - name: large
    kind: cpu
    cores: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
  - name: gpu
    kind: cuda
    select: "0"
YAML
"$btc" device "$work/svc.yaml" --format json > "$work/svc.json"
python3 - "$work/svc.json" "$work/host.json" <<'PY'
import json, sys
svc, host = (json.load(open(p)) for p in sys.argv[1:3])
want = {"pu": "large", "io_core": 7, "io_sink_core": 8, "gpu_core": 9, "chunk_cores": list(range(7))}
assert svc["service"] == want, svc["service"]
assert [p["name"] for p in svc["pus"]] == ["small", "large", "gpu"], svc["pus"]
assert host["service"] is None or any(p["kind"] != "cpu" for p in host["pus"]), host
PY
echo "ok: btc device --format json"
