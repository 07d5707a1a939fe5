#!/usr/bin/env python3
"""vk_hold.py OUTDIR: Vulkan drivers and the validation layer that stay
loaded, for scripts/test's LeakSanitizer run.

The Vulkan loader dlcloses a driver (and a layer) with the last instance
that used it. LeakSanitizer then reports whatever the driver's one-time
initialisation allocated (a pthread_once in Mesa's llvmpipe), reachable only
from its now unmapped globals, as leaked from "<unknown module>": no
suppression can name it, and btc's host probe and every Vulkan test hit it.

For each driver manifest of the system (icd.d) and for the Khronos
validation layer's manifest, this writes under OUTDIR a copy whose
library_path is a wrapper: an empty shared library linked -z nodelete
against the real one. The loader dlopens and dlsyms the wrapper (dlsym on
its handle finds the real library's entry points, a dependency); dlclose
leaves it, and so the real library, mapped. Prints the environment that
points the loader at the copies (VK_DRIVER_FILES, VK_ICD_FILENAMES,
VK_LAYER_PATH), one NAME=VALUE a line. Manifests whose library does not
link are left out (a message on stderr); none at all is an error.
"""
import glob
import json
import os
import subprocess
import sys

ICD_DIRS = ["/usr/share/vulkan/icd.d", "/etc/vulkan/icd.d"]
LAYER_DIRS = ["/usr/share/vulkan/explicit_layer.d", "/etc/vulkan/explicit_layer.d"]
LAYER = "VK_LAYER_KHRONOS_validation"


def wrap(out, name, manifest, key):
    """Writes OUTDIR/NAME.so and returns the manifest with it, or None."""
    with open(manifest) as f:
        m = json.load(f)
    lib = m[key]["library_path"]
    if not os.path.isabs(lib):  # a bare name: relative to the manifest or
        near = os.path.join(os.path.dirname(manifest), lib)  # the library path
        link = [near] if os.path.exists(near) else ["-l:" + lib]
    else:
        link = [lib, "-Wl,-rpath," + os.path.dirname(lib)]
    so = os.path.join(out, name + ".so")
    empty = os.path.join(out, "empty.c")
    with open(empty, "w") as f:
        f.write("/* vk_hold.py: holds its dependency loaded */\n")
    cmd = [os.environ.get("CC", "cc"), "-shared", "-fPIC", "-o", so, empty,
           "-Wl,-z,nodelete", "-Wl,--no-as-needed"] + link
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write("vk_hold: %s: cannot link %s, left out\n%s" % (manifest, lib, r.stderr))
        return None
    m[key]["library_path"] = so
    return m


def main():
    out = os.path.abspath(sys.argv[1])
    os.makedirs(os.path.join(out, "layers"), exist_ok=True)
    drivers = []
    for d in ICD_DIRS:
        for manifest in sorted(glob.glob(os.path.join(d, "*.json"))):
            name = "icd-" + os.path.basename(manifest)[:-5]
            m = wrap(out, name, manifest, "ICD")
            if m:
                path = os.path.join(out, name + ".json")
                with open(path, "w") as f:
                    json.dump(m, f, indent=2)
                drivers.append(path)
    if not drivers:
        sys.exit("vk_hold: no Vulkan driver manifest in " + " ".join(ICD_DIRS))
    for d in LAYER_DIRS:
        for manifest in sorted(glob.glob(os.path.join(d, "*.json"))):
            with open(manifest) as f:
                if json.load(f).get("layer", {}).get("name") != LAYER:
                    continue
            m = wrap(out, "layer-validation", manifest, "layer")
            if m:
                with open(os.path.join(out, "layers", "validation.json"), "w") as f:
                    json.dump(m, f, indent=2)
    print("VK_DRIVER_FILES=" + ":".join(drivers))
    print("VK_ICD_FILENAMES=" + ":".join(drivers))
    print("VK_LAYER_PATH=" + os.path.join(out, "layers"))


if __name__ == "__main__":
    main()
