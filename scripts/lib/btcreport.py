"""btcreport: the readers of the workload job's output that scripts/
workload-compare, workload-attain, workload-gpu-wait, workload-rejudge
and workload-rejudge-ab share, and the median's exact interval
(median_ci; scripts/io-copy-ab) (docs/report.md, "The workload job" and
"The workload program"; docs/evaluation.md, "Several apps on one chip").

A lease folder of scripts/eval-workload holds one run folder per
workload, GPU API and stream count N (N + N streams), named
WORKLOAD-API-N (older leases: octree+alexnet-API-N); a run folder holds
machine.txt ("key: value" lines: date, gpu, commit, host, command, ...),
NAME.log and, unless the run failed, the job's report NAME.json
({"kind": "workload", "plan": ..., "colocation": ..., "streams": ...}).

Readers only: nothing here prints or runs anything. Stdlib only
(/usr/bin/python3); a script imports it with

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "lib"))
    import btcreport
"""
import glob
import json
import os
import re
import shlex

# WORKLOAD-API-N, the run folder's name (and its report's, less .json).
RUN_NAME = re.compile(r"^(?P<wl>.+)-(?P<api>[A-Za-z0-9_]+)-(?P<n>[0-9]+)$")


def load(path):
    """The JSON document at path (a report, list.json, a tune report).
    Raises OSError or ValueError as json.load does."""
    with open(path) as f:
        return json.load(f)


def run_name(tag):
    """(workload, api, n) of a run folder's name WORKLOAD-API-N, n an int
    (the streams per app: N + N); None when tag is not such a name."""
    g = RUN_NAME.match(tag)
    if not g:
        return None
    return g["wl"], g["api"], int(g["n"])


def lease_runs(lease):
    """[(tag, dir, (workload, api, n))] for every folder of lease whose name
    is a run name, in name order; dir ends in '/'. The folders need not hold
    a report (a failed run keeps its log only)."""
    out = []
    for d in sorted(glob.glob(os.path.join(lease, "*", ""))):
        tag = os.path.basename(d.rstrip("/"))
        key = run_name(tag)
        if key is not None:
            out.append((tag, d, key))
    return out


def run_report(run_dir):
    """Path of a run folder's job report, RUN_DIR/NAME.json with NAME the
    folder's name (it need not exist)."""
    run_dir = run_dir.rstrip("/")
    return os.path.join(run_dir, os.path.basename(run_dir) + ".json")


def machine(run_dir):
    """{key: value} of the run folder's machine.txt ("key: value" lines,
    value stripped, the first line of a key wins); {} when there is no
    machine.txt or it cannot be read."""
    m = {}
    try:
        with open(os.path.join(run_dir, "machine.txt")) as f:
            for line in f:
                k, _, v = line.partition(":")
                if k not in m:
                    m[k] = v.strip()
    except OSError:
        pass
    return m


# The job's options that `btc tune --measurements` does not take or sets
# itself: without a value, and with one.
_TUNE_DROP1 = {"--run", "--force"}
_TUNE_DROP2 = {"--tune-tasks", "--tune-budget", "--min-rounds", "--seed", "-o", "--report",
               "--device", "--cpu-groups"}


def tune_command(run_dir, btc, root, drop=(), extra=()):
    """The argv of `btc tune` with the job's own tables and options: the
    `command:` line of RUN_DIR/machine.txt less its program name, its
    --run, --force and the options above (and those in drop, each with
    its value), /work/main/ paths moved to root, then `--device` the
    host-g1.yaml beside the first table (.csv) named, then extra. The
    caller adds --measurements and --report. Raises KeyError when
    machine.txt has no command line."""
    a = shlex.split(machine(run_dir)["command"])[1:]
    drop2 = _TUNE_DROP2 | set(drop)
    out, i, dev = [], 0, None
    while i < len(a):
        x = a[i]
        if x in _TUNE_DROP1:
            i += 1
            continue
        if x in drop2:
            i += 2
            continue
        x = x.replace("/work/main/", root + "/")
        if x.endswith(".csv") and dev is None:
            dev = os.path.join(os.path.dirname(x.split("=", 1)[1]), "host-g1.yaml")
        out.append(x)
        i += 1
    return [btc, "tune"] + out + ["--device", dev] + list(extra)


def num(x):
    """x when it is a number (not a bool), else None."""
    return x if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def stat(s):
    """(median, low, high, exact) of a report's {median, ci_low, ci_high,
    exact} object (low, high None when absent); None without a median."""
    if not isinstance(s, dict) or num(s.get("median")) is None:
        return None
    return (s["median"], num(s.get("ci_low")), num(s.get("ci_high")), bool(s.get("exact")))


def chosen_joint(colocation):
    """The chosen joint candidate of a job report's `colocation`: the
    `joint[]` entry whose `index` (else its position) is `best`; None
    when best is null or no entry has it (the last one does where several
    do)."""
    b = colocation.get("best")
    joint = None
    for pos, x in enumerate(colocation.get("joint") or []):
        if x.get("index", pos) == b:
            joint = x
    return joint if b is not None else None


def table_bound(plan):
    """The multi-app fluid bound on the tables as profiled, in the table's
    units: `plan.fluid_bound_table`, in older reports `plan.fluid_bound`
    (the same number); None when neither is a number."""
    t = num(plan.get("fluid_bound_table"))
    return t if t is not None else num(plan.get("fluid_bound"))


def capacity_bound(plan):
    """The measured-capacity bound's entry of a plan (a job report's or a
    `btc tune --measurements` report's): `fluid_bound_capacity.calibrated`,
    else its `table` ({kappa, load, from_runs, judged_runs, bound, holds,
    capacity_exceeded}); {} when the plan has neither."""
    fc = plan.get("fluid_bound_capacity") or {}
    return fc.get("calibrated") or fc.get("table") or {}


def judged_bound(plan):
    """The bound the job's verdict used: `plan.fluid_bound_judged`
    ("calibrated" or "table"); in reports without it, "calibrated" where
    the plan has a calibrated bound, else "table"."""
    judged = plan.get("fluid_bound_judged")
    if judged not in ("table", "calibrated"):
        judged = "calibrated" if num(plan.get("fluid_bound_calibrated")) is not None else "table"
    return judged


def m_over(m, bound):
    """M over a bound as the rejudge tables print it: "0.92", or "NOT a
    bound (1.08)" when M lies above it."""
    return "%.2f" % (m / bound) if m <= bound else "NOT a bound (%.2f)" % (m / bound)


def kappa_text(cap):
    """The PUs of a capacity entry whose kappa is above 1, "cuda 1.27 cpu
    1.47" (dict order), or "1" when none is."""
    return " ".join("%s %.2f" % (pu, k) for pu, k in cap["kappa"].items() if k > 1) or "1"


def median_ci(v, conf=0.95):
    """The median of v and its exact interval as btc_stats_median_ci
    (report/stats.c) gives them: [x(j), x(n+1-j)] of the sorted values, j
    the largest with P(Binomial(n, 1/2) <= j - 1) <= (1 - conf) / 2, at
    most n / 2. Returns (median, lo, hi, exact); exact False (fewer than
    6 values at 95 %): lo, hi are the min and max. Stdlib only."""
    from math import comb
    from statistics import median
    s = sorted(v)
    n = len(s)
    j = 0
    while j + 1 <= n // 2 and sum(comb(n, i) for i in range(j + 1)) / 2 ** n <= (1 - conf) / 2:
        j += 1
    exact = j >= 1
    j = max(j, 1)
    return median(s), s[j - 1], s[n - j], exact
