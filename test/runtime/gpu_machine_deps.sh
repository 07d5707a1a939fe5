#!/bin/bash
# Prepares build-rtdeps/ (git-ignored) for test/runtime/gpu_machine.sh: the
# GPU machine has no CUnit, pkg-config, glslc, Vulkan loader/headers, glvnd,
# Concurrency Kit or meson, and cannot download. Run here, then call the
# device tool with carry ["build-rtdeps"] and the command
#   bash test/runtime/gpu_machine.sh 2>&1 | tee $OUT/device.log
set -eu
cd "$(dirname "$0")/../.."
D=build-rtdeps
mkdir -p $D/debs $D/py $D/rtdev/test $D/rtdev/bench
(cd $D/debs && apt-get download libcunit1 libcunit1-dev libvulkan-dev libvulkan1 glslc \
	libshaderc1 pkgconf pkgconf-bin libpkgconf3 libck-dev libegl1 libglvnd0 libopengl0 \
	libgl1 libglx0 libgles2)
# meson itself (pure Python), from this machine's installation.
rm -rf $D/py/mesonbuild
cp -r "$(python3 -c 'import mesonbuild, os; print(os.path.dirname(mesonbuild.__file__))' 2>/dev/null \
	|| echo /usr/lib/python3/dist-packages/mesonbuild)" $D/py/mesonbuild
find $D/py -name __pycache__ -prune -exec rm -rf {} +
# A minimal project around runtime/, test/common/ (the shared CUnit runner),
# test/runtime/ and bench/runtime/, so the run does not depend on the state
# of the rest of the tree.
ln -sfn ../../runtime $D/rtdev/runtime
ln -sfn ../../../test/common $D/rtdev/test/common
ln -sfn ../../../test/runtime $D/rtdev/test/runtime
ln -sfn ../../../bench/runtime $D/rtdev/bench/runtime
cat > $D/rtdev/meson_options.txt <<'EOF'
option('cuda', type: 'feature', value: 'auto')
option('vulkan', type: 'feature', value: 'auto')
option('tests', type: 'boolean', value: true)
option('tsan', type: 'feature', value: 'auto')
EOF
cat > $D/rtdev/meson.build <<'EOF'
project('rtdev', 'c', default_options: ['c_std=c11', 'warning_level=3', 'buildtype=debugoptimized'])
cc = meson.get_compiler('c')
fs = import('fs')
add_project_arguments(cc.get_supported_arguments(['-D_GNU_SOURCE', '-Wshadow', '-Wstrict-prototypes',
  '-Wmissing-prototypes', '-Wno-unused-parameter', '-Wvla', '-Wformat=2', '-Wno-format-nonliteral']), language: 'c')
thread_dep = dependency('threads')
m_dep = cc.find_library('m', required: false)
openmp_dep = dependency('openmp')
cunit_dep = dependency('cunit')
vulkan_dep = dependency('vulkan', required: get_option('vulkan'))
glslc = find_program('glslc', required: get_option('vulkan'))
have_vulkan = vulkan_dep.found() and glslc.found()
have_cuda = add_languages('cuda', required: get_option('cuda'), native: false)
if have_cuda
  cuda_dep = dependency('cuda', version: '>= 11', modules: ['cudart_static'], required: false)
  if not cuda_dep.found()
    cuda_dep = dependency('cuda', modules: ['cudart'], required: get_option('cuda'))
  endif
  have_cuda = cuda_dep.found()
  add_project_arguments('-arch=sm_75', '-gencode=arch=compute_75,code=sm_75',
    '-gencode=arch=compute_90,code=sm_90', language: 'cuda')
endif
conf = configuration_data()
conf.set10('BTC_HAVE_VULKAN', have_vulkan)
conf.set10('BTC_HAVE_CUDA', have_cuda)
configure_file(output: 'btc_config.h', configuration: conf)
config_inc = include_directories('.')
subdir('runtime')
subdir('test/common')
subdir('test/runtime')
subdir('bench/runtime')
EOF
du -sh $D
