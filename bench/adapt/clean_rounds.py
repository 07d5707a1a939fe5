#!/usr/bin/env python3
"""The figures of a bench_adapt.py JSON (OUT/APP-{cpu,gpu}hog.json) over
every round and over the rounds that no other process loaded (the
round's max_external_cores at most the run's limit): medians and
[min..max] of the two throughput ratios, with the best static schedule
chosen again among the rounds kept.

usage: bench/adapt/clean_rounds.py APP-cpuhog.json [...]
"""
import json
import statistics
import sys


def spread(v):
    if not v:
        return "n/a (no round)"
    return "%.3f [%.3f..%.3f] (%d rounds)" % (statistics.median(v), min(v), max(v), len(v))


def figures(r, keep):
    rounds = r["rounds"]
    statics, s0 = [int(k) for k in rounds["static"]], r["s0"]
    st = {k: [rounds["static"][str(k)][i] for i in keep] for k in statics}
    ad = [rounds["adapt"][i]["ms"] for i in keep]
    if not keep:
        return None
    best = min(statics, key=lambda k: statistics.median(st[k]))
    return {
        "best": best,
        "best_ms": statistics.median(st[best]),
        "s0_ms": statistics.median(st[s0]),
        "adapt_ms": statistics.median(ad),
        "ratio_best": [st[best][i] / ad[i] for i in range(len(keep)) if ad[i] > 0],
        "ratio_s0": [st[s0][i] / ad[i] for i in range(len(keep)) if ad[i] > 0],
        "switches": [rounds["adapt"][i]["switches"] for i in keep],
        "finals": [rounds["adapt"][i]["final"] for i in keep],
        "nohog_switches": [rounds["adapt_nohog"][i]["switches"] for i in keep],
    }


def main():
    for path in sys.argv[1:]:
        r = json.load(open(path))
        n = len(r["rounds"]["adapt"])
        lim = r.get("max_external_cores", 0.3)
        clean = [i for i in range(n) if not r["rounds"]["load"][i].get("loaded")]
        print(f"## {r['app']} ({path}): {n} rounds, {len(clean)} not loaded (others <= {lim} cores)")
        for name, keep in (("every round", list(range(n))), ("rounds not loaded", clean)):
            f = figures(r, keep)
            if not f:
                print(f"  {name}: none")
                continue
            print(f"  {name}: best static {f['best']} {f['best_ms']:.3f} ms/task, S0 {r['s0']} "
                  f"{f['s0_ms']:.3f}, adaptive {f['adapt_ms']:.3f}")
            print(f"    adaptive / best static {spread(f['ratio_best'])}; adaptive / S0 {spread(f['ratio_s0'])}")
            print(f"    switches {f['switches']}, final {f['finals']}, no-hog switches {f['nohog_switches']}")


if __name__ == "__main__":
    main()
