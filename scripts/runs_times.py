"""What scripts/runs-by-part and scripts/table-vs-runs share: a schedule
label's chunks and one run's figure by part from a main job's report
(candidates[].runs_times, docs/report.md), its steady-state mean where the
report kept one, else its median, else its mean."""


def chunks_of(label):
    """[(pu, first, last)] of a schedule label "cuda:0-5 cpu:6"."""
    out = []
    for tok in label.split():
        pu, rng = tok.rsplit(":", 1)
        a, _, b = rng.partition("-")
        out.append((pu, int(a), int(b or a)))
    return out


# The per-run statistics, the preferred first: runs_times' key suffix and name.
STATS = (("_steady_ms", "steady mean"), ("_median_ms", "median"), ("_ms", "mean"))


def per_run(t, part, i):
    """Run t's figure i of part ("chunks", "stages"): its steady mean where
    the report kept one, else its median, else its mean; and which."""
    for suffix, stat in STATS:
        v = t.get(part + suffix)
        if v is not None and i < len(v) and v[i] is not None:
            return v[i], stat
    return None, "mean"


def per_run_io(t, part):
    """Run t's io figure (part "load", "check") the same way, and which."""
    for suffix, stat in STATS:
        if t.get(part + suffix):
            return t[part + suffix], stat
    return None, "mean"
