"""The Python side of test/gen/joint.sh: reading a workload program's
--list-json (docs/codegen.md, "Chunk cores per stream")."""


def pu_core_sets(candidate, pu):
    """The core sets (lists of cores) of candidate's chunks on PU `pu`, in
    stream order. Asserts that every stream lists one core set per chunk of
    its schedule's label and that chunks on other PUs have none (they keep
    their schedule's cores)."""
    sets = []
    for cs in candidate["streams"]:
        pus = [ch.split(":")[0] for ch in cs["label"].split()]
        assert len(cs["chunk_cores"]) == len(pus), cs
        for p, cores in zip(pus, cs["chunk_cores"]):
            if p == pu:
                sets.append(cores)
            else:
                assert cores == [], cs
    return sets
