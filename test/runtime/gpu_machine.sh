#!/bin/bash
# Builds and runs the btrt tests and benchmark on the GPU machine (called
# through the device tool; see docs/runtime.md). Output goes to stdout and $OUT.
set -u
D=$(cd "$(dirname "$0")/../.." && pwd)/build-rtdeps
R=/opt/rtdeps
mkdir -p $R
for f in $D/debs/*.deb; do
  # The Vulkan loader and glvnd (which NVIDIA's ICD needs) go to / as the
  # device tool's notes say; everything else stays under $R.
  case $f in *libvulkan1_*|*libegl1_*|*libglvnd0_*|*libopengl0_*|*libgl1_*|*libglx0_*|*libgles2_*) dpkg -x $f / ;; esac
  dpkg -x $f $R
done
ldconfig
export PATH=$R/usr/bin:/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$R/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
export PKG_CONFIG=$R/usr/bin/pkgconf
export PKG_CONFIG_SYSROOT_DIR=$R
export PKG_CONFIG_LIBDIR=$R/usr/lib/x86_64-linux-gnu/pkgconfig:$R/usr/share/pkgconfig
export CPATH=$R/usr/include
export LIBRARY_PATH=$R/usr/lib/x86_64-linux-gnu
export PYTHONPATH=$D/py
for p in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/share/vulkan/icd.d/nvidia_icd.json /etc/vulkan/icd.d/nvidia_icd.json; do
  [ -f $p ] && { export VK_DRIVER_FILES=$p VK_ICD_FILENAMES=$p; break; }
done
if [ -z "${VK_DRIVER_FILES:-}" ]; then
  lib=$(ldconfig -p | grep -m1 'libGLX_nvidia.so.0' | awk '{print $NF}')
  if [ -n "$lib" ]; then
    printf '{"file_format_version":"1.0.0","ICD":{"library_path":"%s","api_version":"1.3.0"}}\n' "$lib" > /tmp/nvidia_icd.json
    export VK_DRIVER_FILES=/tmp/nvidia_icd.json VK_ICD_FILENAMES=/tmp/nvidia_icd.json
  fi
fi
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
echo "VK_DRIVER_FILES=${VK_DRIVER_FILES:-unset}"; cat ${VK_DRIVER_FILES:-/dev/null}
meson() { python3 -c 'import sys; from mesonbuild.mesonmain import main; sys.exit(main())' "$@"; }
echo "== machine"; nproc; nvidia-smi --query-gpu=name,driver_version --format=csv; nvcc --version | tail -1
cd $D/rtdev
rm -rf /tmp/bd
L=${OUT:-/tmp}
meson setup /tmp/bd . > $L/setup.log 2>&1 || { tail -30 $L/setup.log; exit 1; }
grep -E "CUDA|Vulkan|vulkan|cunit|OpenMP" $L/setup.log
ninja -C /tmp/bd -j16 -k 0 > $L/ninja.log 2>&1
grep -E "FAILED|cannot find|undefined reference" $L/ninja.log | head -20
if [ ! -x /tmp/bd/test/runtime/test_runtime ]; then
  echo "== retry without Vulkan"
  meson setup /tmp/bd -Dvulkan=disabled --wipe >> $L/setup.log 2>&1
  ninja -C /tmp/bd -j16 -k 0 > $L/ninja2.log 2>&1
  grep -E "FAILED|cannot find|undefined reference" $L/ninja2.log | head -20
fi
echo "== vulkan loader check"
VK_LOADER_DEBUG=error,warn /tmp/bd/test/runtime/test_runtime -r vulkan 2>&1 | grep -iE "loader|error" | head -8
echo "== tests"
for s in ring pipeline vulkan cuda; do
  echo "-- test_runtime -r $s"
  /usr/bin/time -f "wall %e s" /tmp/bd/test/runtime/test_runtime -r $s 2>&1 | grep -vE "^\s*$|CUnit - A unit|cunit.sourceforge"
  echo "exit status: ${PIPESTATUS[0]}"
done
for m in managed pinned; do
  echo "-- BTRT_CUDA_MEM=$m test_runtime -r cuda"
  BTRT_CUDA_MEM=$m /tmp/bd/test/runtime/test_runtime -r cuda 2>&1 | grep -E "tests|asserts|error|FAIL|buffer"
done
echo "-- BTRT_VK_DEVICE=llvmpipe test_runtime -r vulkan (if a CPU Vulkan driver is installed)"
BTRT_VK_DEVICE=llvmpipe /tmp/bd/test/runtime/test_runtime -r vulkan 2>&1 | grep -E "tests|vulkan:"
if [ -x /tmp/bd/test/runtime/test_runtime_tsan ]; then
  for s in ring pipeline; do
    echo "-- test_runtime_tsan -r $s"
    TSAN_OPTIONS="halt_on_error=1 exitcode=66" /tmp/bd/test/runtime/test_runtime_tsan -r $s 2>&1 | grep -E "tests|WARNING|asserts"
  done
fi
echo "== bench"
[ -x /tmp/bd/bench/runtime/bench_runtime ] && /tmp/bd/bench/runtime/bench_runtime -r 5
[ -x /tmp/bd/bench/runtime/bench_gpu ] && /tmp/bd/bench/runtime/bench_gpu -t 5000
exit 0
