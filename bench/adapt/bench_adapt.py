#!/usr/bin/env python3
"""Adaptive pipelines against static schedules under a hog (docs/runtime.md,
"Adaptive pipelines"; docs/results/host-adaptive.md).

usage: bench/adapt/bench_adapt.py OUT [--btc PATH] [--apps octree,alexnet-dense]
           [--device host] [--cpu-groups 2] [--gpu vulkan|cuda] [--top K] [--mode M]
           [--rounds R] [--tasks N] [--hog-from H] [--static-tasks M]
           [--hog cpu|gpu] [--hog-cores LIST] [--hog-threads T] [--hog-gpu-ms MS]
           [--start N] [--seed S] [--cpu-only] [--max-load L] [--max-external C]
           [--retries K]

Per app: profile (cached in OUT/cache), generate and build the program with
the table's top K and the baselines, then
 1. a no-hog pass over every schedule (2 interleaved runs of M tasks): the
    fastest is the static choice S0 (what btc's tuner picks); schedules more
    than 4x slower than it are left out of the hog comparison (named);
 2. R rounds, each in a seeded shuffled order:
    - adaptive: `--schedule S0 --adapt`, N tasks, `--warmup H`, the hog
      from task H on (counted after the program's extra warm-up tasks, one
      per TaskObject beyond H: with the first measured task);
      figure: ms/task after its last switch (after_switch_ms_per_task, from
      max(the run's warm-up, resume + settle)), plus its switches and
      switching time;
    - adaptive, no hog: N tasks; figure: its number of switches;
    - every static schedule under the same hog from task 0, M tasks after
      M/5 warm-up; figure: measured_ms_per_task.
The machine is shared: before each pass and round the script waits until
the 1-min load average is at most --max-load (1.25 x cores: 2.5 on the dev
box; it counts the benchmark's own threads too), and it measures, per run,
the cores that other processes took (machine busy time from /proc/stat,
steal included, minus this script's children's CPU time, over the wall
time); a round in which one run saw more than --max-external cores (0.15 x
cores: 0.3 on the dev box) taken by others is run again, up to --retries
times (the discarded ones are listed in the JSON; a round kept over the
limit is marked LOADED). Every run's load figures are in the JSON beside
its figure.
The table is profiled once per OUT (OUT/APP.csv), so a CPU-hog and a
GPU-hog benchmark can share it. Prints, per app: medians with [min..max] over the rounds; the best static
schedule under the hog (lowest median); the per-round ratios
best_static_ms / adaptive_ms (throughput of the adaptive run relative to
the best static one; goal >= 0.90) and S0_ms / adaptive_ms (against the
non-adaptive run; goal >= 1.2); switches without the hog in every run
(goal 0); the load average around each round. Raw runs in
OUT/APP-{cpu,gpu}hog.json, the printout in OUT/summary-{cpu,gpu}hog.md.

The hog: --hog cpu (default) pins --hog-threads busy threads to each of
--hog-cores (default: the cores of S0's CPU PU that runs the most stages);
--hog gpu runs back-to-back CUDA spin kernels of --hog-gpu-ms.
"""
import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time


def busy_s():
    """CPU seconds the whole machine has been busy (all cores; user, nice,
    system, irq, softirq and steal: steal is a VM's host taking the core)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:9]]
    return (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / os.sysconf("SC_CLK_TCK")


def children_s():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


class Meter:
    """The machine's load around a job: the 1-min load average before
    (uptime's figure, which counts the benchmark's own threads too) and the
    cores busy with other processes during it ("external": machine busy
    time minus this benchmark's children's CPU time, over the wall time)."""

    def __init__(self):
        self.load = os.getloadavg()[0]
        self.t, self.b, self.c = time.time(), busy_s(), children_s()

    def done(self):
        wall = max(1e-3, time.time() - self.t)
        ext = max(0.0, (busy_s() - self.b) - (children_s() - self.c)) / wall
        return {"load": round(self.load, 2), "external_cores": round(ext, 3)}


def wait_load(limit, max_wait_s=900):
    """Sleeps until the 1-min load average is at most limit (or max_wait_s
    passed). Returns the seconds waited."""
    t0 = time.time()
    while os.getloadavg()[0] > limit and time.time() - t0 < max_wait_s:
        time.sleep(15)
    return time.time() - t0


def run(cmd, **kw):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    if p.returncode != 0:
        sys.stderr.write(p.stdout)
        raise SystemExit(f"bench-adapt: {' '.join(cmd)} exited {p.returncode}")
    return p.stdout


def med(v):
    return statistics.median(v) if v else float("nan")


def spread(v, fmt="%.3f"):
    if not v:
        return "n/a"
    return (fmt + " [" + fmt + ".." + fmt + "]") % (med(v), min(v), max(v))


def schedules(prog):
    """The program's schedules from `--list-json` (index, kind, label,
    chunks: [{pu, first_stage, last_stage, cores}], predicted_ms, pool)."""
    return json.loads(run([prog, "--list-json"]))


def device_json(btc, device, groups):
    """`btc device DEVICE --cpu-groups G --format json`: the description,
    with the generated program's service cores ("service")."""
    return json.loads(run([btc, "device", device, "--cpu-groups", str(groups), "--format", "json"]))


def pu_cores(btc, device, groups):
    """CPU PU name -> the cores its chunks run on, as btc lays them out: the
    PU that gives up its service cores to the io thread and the GPU
    dispatchers (btc's "service": docs/runtime.md, "Placement") runs its
    chunks on the rest ("chunk_cores"), which the hog leaves alone."""
    dev = device_json(btc, device, groups)
    cores = {pu["name"]: pu.get("pinnable", pu.get("cores", []))
             for pu in dev["pus"] if pu["kind"] == "cpu"}
    if dev["service"]:
        cores[dev["service"]["pu"]] = dev["service"]["chunk_cores"]
    return cores


def cpu_only_device(btc, device, groups, path):
    """`btc device DEVICE --cpu-groups G` without its GPU PUs, written to
    path (as JSON, which is YAML): on the dev box the Vulkan device is
    llvmpipe, which runs on the same cores as the CPU PUs (cpu_backed), so
    it is no PU of its own to move work to when a core is taken."""
    dev = device_json(btc, device, groups)
    dev.pop("service", None)
    dev["pus"] = [pu for pu in dev["pus"] if pu["kind"] == "cpu"]
    with open(path, "w") as f:
        json.dump(dev, f, indent=2)
        f.write("\n")
    return path


def hog_args(a, cores):
    if a.hog == "gpu":
        return ["--hog-gpu", str(a.hog_gpu_ms)]
    return ["--hog-cpu", ",".join(str(c) for c in cores for _ in range(a.hog_threads))]


def prog_run(prog, args, report, loads=None):
    if os.path.exists(report):
        os.remove(report)
    m = Meter()
    run([prog, "--quiet", "--report", report] + args)
    if loads is not None:
        loads.append(m.done())
    with open(report) as f:
        return json.load(f)


def bench_app(a, app, out, rng):
    tag = f"{app}-{a.hog}hog"
    table = os.path.join(out, f"{app}.csv")
    common = ["--device", a.device, "--cpu-groups", str(a.cpu_groups), "--gpu", a.gpu]
    if a.cpu_only:
        dev = cpu_only_device(a.btc, a.device, a.cpu_groups, os.path.join(out, "cpu-only.yaml"))
        common = ["--device", dev]
    if not os.path.exists(table):
        wait_load(a.max_load)
        m0 = Meter()
        run([a.btc, "profile", os.path.join(a.root, "apps", app + ".yaml"), *common,
             "--cache", os.path.join(out, "cache"), "-o", table])
        with open(table + ".load.json", "w") as f:
            json.dump(m0.done(), f)
    pdir = os.path.join(out, f"{app}-prog")
    run([a.btc, "gen", os.path.join(a.root, "apps", app + ".yaml"), *common, "--table", table,
         "--mode", a.mode, "--top", str(a.top), "-o", pdir, "--build"])
    prog = os.path.join(pdir, "build", f"{app.replace('-', '_')}-pipeline")
    if not os.path.exists(prog):
        prog = os.path.join(pdir, "build", f"{app}-pipeline")
    scheds = schedules(prog)
    rep = os.path.join(out, f"{tag}.run.json")
    m, w = a.static_tasks, max(1, a.static_tasks // 5)
    # every run gets the adaptive run's pool (the largest schedule's chunks
    # + 1): a deeper pool alone changes a schedule's figure
    pool = ["--pool", str(1 + max(len(s["chunks"]) for s in scheds))]

    # 1. the static choice without the hog (each pass retried while
    # another process took more than --max-external cores)
    t0 = {s["index"]: [] for s in scheds}
    t0_load = []
    for _ in range(2):
        for attempt in range(a.retries + 1):
            wait_load(a.max_load)
            order = list(t0)
            rng.shuffle(order)
            ms, loads = {}, []
            for k in order:
                r = prog_run(prog, ["--schedule", str(k), "--tasks", str(m), "--warmup", str(w), *pool],
                             rep, loads)
                ms[k] = r["measured_ms_per_task"]
            if max(x["external_cores"] for x in loads) <= a.max_external or attempt == a.retries:
                break
            print(f"  {app} no-hog pass: another process took "
                  f"{max(x['external_cores'] for x in loads):.2f} cores: again", flush=True)
        for k in ms:
            t0[k].append(ms[k])
        t0_load += loads
    s0 = a.start if a.start is not None else min(t0, key=lambda k: med(t0[k]))
    best0 = med(t0[s0])
    statics = [k for k in t0 if med(t0[k]) <= 4 * best0]
    left_out = [k for k in t0 if k not in statics]

    cores = []
    if a.hog == "cpu":
        if a.hog_cores:
            cores = [int(c) for c in a.hog_cores.split(",")]
        else:
            pc = pu_cores(a.btc, common[1], a.cpu_groups if not a.cpu_only else 1)
            label = scheds[s0]["label"]
            cpu = [(c["last_stage"] - c["first_stage"] + 1, c["pu"])
                   for c in scheds[s0]["chunks"] if c["pu"] in pc]
            if not cpu:
                raise SystemExit(f"bench-adapt: {app}: schedule {s0} ({label}) has no CPU chunk to hog")
            cores = pc[max(cpu)[1]]
    hog = hog_args(a, cores)

    # 2. rounds; a round during which another process took more than
    # --max-external cores in one of its runs is run again (up to
    # --retries times), after the load average fell to --max-load
    res = {"adapt": [], "adapt_nohog": [], "static": {k: [] for k in statics}, "load": [],
           "static_load": {k: [] for k in statics}, "discarded": []}
    for rnd in range(a.rounds):
        for attempt in range(a.retries + 1):
            waited = wait_load(a.max_load)
            jobs = [("adapt", None), ("adapt_nohog", None)] + [("static", k) for k in statics]
            rng.shuffle(jobs)
            load_before = os.getloadavg()[0]
            got = {"static": {}}
            for kind, k in jobs:
                loads = []
                if kind == "adapt":
                    r = prog_run(prog, ["--schedule", str(s0), "--adapt", "--tasks", str(a.tasks),
                                        "--warmup", str(a.hog_from), *pool, *hog, "--hog-from",
                                        str(a.hog_from)], rep, loads)
                    ad = r["adapt"]
                    sw = [d for d in ad["decisions"] if "resume_task" in d]
                    got["adapt"] = {"ms": ad["after_switch_ms_per_task"], "from": ad["after_switch_from_task"],
                                    "switches": ad["switches"], "trials": ad.get("trials"),
                                    "reverts": ad.get("reverts"), "final": ad["final_schedule"],
                                    "switch_ms": [d["switch_ms"] for d in sw],
                                    "switch_tasks": [d["task"] for d in sw],
                                    # the stream's task the hog counts from: the
                                    # extra warm-up tasks (one per TaskObject
                                    # beyond --warmup) stream first, uncounted
                                    "hog_first": r.get("hog", {}).get("first_counted_task", 0),
                                    "kinds": [d.get("kind", "switch") for d in sw],
                                    "decisions": ad["decisions"], **loads[0]}
                elif kind == "adapt_nohog":
                    r = prog_run(prog, ["--schedule", str(s0), "--adapt", "--tasks", str(a.tasks),
                                        "--warmup", str(a.hog_from), *pool], rep, loads)
                    got["adapt_nohog"] = {"switches": r["adapt"]["switches"],
                                          "ms": r["measured_ms_per_task"],
                                          "decisions": r["adapt"]["decisions"], **loads[0]}
                else:
                    r = prog_run(prog, ["--schedule", str(k), "--tasks", str(m), "--warmup", str(w),
                                        *pool, *hog, "--hog-from", "0"], rep, loads)
                    got["static"][k] = (r["measured_ms_per_task"], loads[0])
            ext = max([got["adapt"]["external_cores"], got["adapt_nohog"]["external_cores"]]
                      + [v[1]["external_cores"] for v in got["static"].values()])
            round_load = {"load_before": round(load_before, 2), "load_after": round(os.getloadavg()[0], 2),
                          "max_external_cores": ext, "waited_s": round(waited), "attempt": attempt + 1,
                          "loaded": ext > a.max_external}
            if ext <= a.max_external or attempt == a.retries:
                break
            res["discarded"].append({"round": rnd + 1, **round_load,
                                     "adapt_ms": got["adapt"]["ms"]})
            print(f"  {app} round {rnd + 1}: another process took {ext:.2f} cores "
                  f"(load {load_before:.1f}): again", flush=True)
        res["adapt"].append(got["adapt"])
        res["adapt_nohog"].append(got["adapt_nohog"])
        for k in statics:
            res["static"][k].append(got["static"][k][0])
            res["static_load"][k].append(got["static"][k][1])
        res["load"].append(round_load)
        print(f"  {app} round {rnd + 1}/{a.rounds}: adaptive {res['adapt'][-1]['ms']:.3f} ms/task "
              f"({res['adapt'][-1]['switches']} switches: {' '.join(res['adapt'][-1]['kinds'])}), "
              f"no hog {res['adapt_nohog'][-1]['switches']} switches, load {load_before:.1f} -> "
              f"{round_load['load_after']:.1f}, others {ext:.2f} cores"
              + (" (LOADED)" if round_load["loaded"] else ""), flush=True)

    best = min(statics, key=lambda k: med(res["static"][k]))
    ad_ms = [x["ms"] for x in res["adapt"]]
    ratio_best = [res["static"][best][i] / ad_ms[i] for i in range(a.rounds) if ad_ms[i] > 0]
    ratio_s0 = [res["static"][s0][i] / ad_ms[i] for i in range(a.rounds) if ad_ms[i] > 0]
    with open(os.path.join(out, f"{tag}.json"), "w") as f:
        json.dump({"app": app, "schedules": scheds, "nohog_pass_ms": t0, "s0": s0, "statics": statics,
                   "left_out": left_out, "hog": hog, "hog_from": a.hog_from, "tasks": a.tasks,
                   "static_tasks": m, "nohog_pass_load": t0_load, "max_load": a.max_load,
                   "max_external_cores": a.max_external, "rounds": res}, f, indent=1)

    lines = [f"## {app}", "",
             f"schedules ({len(scheds)}; no-hog pass, {m} tasks x 2, median ms/task):"]
    for s in scheds:
        k = s["index"]
        lines.append(f"  {k:2d} {s['kind']:9s} {s['label']:40s} predicted {s['predicted']:>8s}  "
                     f"measured {med(t0[k]):8.3f}" + ("  <- S0 (static choice)" if k == s0 else "")
                     + ("  (left out: > 4x S0)" if k in left_out else ""))
    lines += ["", f"hog: {' '.join(hog)}; every run {' '.join(pool)}; adaptive runs {a.tasks} tasks, hog from task {a.hog_from}; "
              f"static runs {m} tasks (warm-up {w}) under the hog from task 0; {a.rounds} rounds", "",
              "under the hog, ms/task, median [min..max] over the rounds:"]
    for k in statics:
        lines.append(f"  static {k:2d} {scheds[k]['label']:40s} {spread(res['static'][k])}"
                     + ("  <- best static" if k == best else "") + ("  <- S0" if k == s0 else ""))
    lines.append(f"  adaptive (after its last switch)                  {spread(ad_ms)}")
    sws = [x["switches"] for x in res["adapt"]]
    kinds = [" ".join(x["kinds"]) or "-" for x in res["adapt"]]
    finals = [x["final"] for x in res["adapt"]]
    sw_ms = [v for x in res["adapt"] for v in x["switch_ms"]]
    sw_at = [t - a.hog_from - x.get("hog_first", 0) for x in res["adapt"] for t in x["switch_tasks"][:1]]
    lines += ["",
              f"adaptive under the hog: switches per run {sws}; final schedule per run {finals}",
              f"  switches per run, by kind: {' | '.join(kinds)}",
              f"  first switch, tasks after the hog started: {spread(sw_at, '%.0f')}; "
              f"switching time (drain + rewire) ms: {spread(sw_ms)}",
              f"throughput adaptive / best static (best_ms / adaptive_ms): {spread(ratio_best)}  (goal >= 0.90)",
              f"throughput adaptive / non-adaptive S0 (S0_ms / adaptive_ms): {spread(ratio_s0)}  (goal >= 1.2)",
              f"no hog: switches per run {[x['switches'] for x in res['adapt_nohog']]}  (goal: 0 in every run)",
              f"no hog: ms/task per run {[round(x['ms'], 3) for x in res['adapt_nohog']]}",
              f"load average (1 min) before/after each round: "
              + ", ".join(f"{x['load_before']:.1f}/{x['load_after']:.1f}" for x in res["load"]),
              f"other processes, most cores taken during one run of the round: "
              + ", ".join(f"{x['max_external_cores']:.2f}" for x in res["load"])
              + f" (limit {a.max_external}); rounds run again: {len(res['discarded'])}; "
              f"rounds kept over the limit: {sum(1 for x in res['load'] if x['loaded'])}", ""]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--btc", default=os.environ.get("BTC", os.path.join(root, "build", "btc", "btc")))
    ap.add_argument("--apps", default="octree,alexnet-dense")
    ap.add_argument("--device", default="host")
    ap.add_argument("--cpu-groups", type=int, default=2)
    ap.add_argument("--gpu", default="vulkan")
    ap.add_argument("--top", type=int, default=8)
    ap.add_argument("--mode", default="interference", help="the table mode to schedule on")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--tasks", type=int, default=600)
    ap.add_argument("--hog-from", type=int, default=150)
    ap.add_argument("--static-tasks", type=int, default=150)
    ap.add_argument("--hog", choices=["cpu", "gpu"], default="cpu")
    ap.add_argument("--hog-cores", default=None)
    ap.add_argument("--hog-threads", type=int, default=1)
    ap.add_argument("--hog-gpu-ms", type=int, default=2)
    ap.add_argument("--start", type=int, default=None, help="S0 instead of the fastest without hog")
    ap.add_argument("--seed", type=int, default=1)
    ncpu = os.cpu_count() or 1
    ap.add_argument("--max-load", type=float, default=1.25 * ncpu,
                    help="wait before a round until the 1-min load average is at most this (1.25 x cores)")
    ap.add_argument("--max-external", type=float, default=0.15 * ncpu,
                    help="run a round again when other processes took more cores than this in one "
                    "of its runs (0.15 x cores)")
    ap.add_argument("--retries", type=int, default=4, help="times a loaded round is run again")
    ap.add_argument("--cpu-only", action="store_true",
                    help="leave the device's GPUs out (the dev box's llvmpipe shares the CPU cores)")
    a = ap.parse_args()
    a.root = root
    os.makedirs(a.out, exist_ok=True)
    rng = random.Random(a.seed)
    head = [f"# bench-adapt {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}",
            f"command: {' '.join(sys.argv)}", f"cores: {os.cpu_count()}, load average at start: "
            + " ".join(f"{x:.2f}" for x in os.getloadavg()), ""]
    print("\n".join(head), flush=True)
    parts = []
    for app in a.apps.split(","):
        text = bench_app(a, app, a.out, rng)
        print(text, flush=True)
        parts.append(text)
    with open(os.path.join(a.out, f"summary-{a.hog}hog.md"), "w") as f:
        f.write("\n".join(head + parts))


if __name__ == "__main__":
    main()
