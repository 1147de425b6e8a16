#!/bin/sh
# What bounds a transpose: times it with this tree's library (`base`) and with the same library
# whose whole-line micro-kernels copy lines instead of transposing them (`new`;
# line_copy_kernels.inl), in one process (ab_compare). The second writes wrong bytes on purpose;
# its time is the transpose's memory traffic alone, with kernels that cost nothing.
#
#   bench/ab/line_copy_kernels.sh <shape> <permutation> <element bytes> <threads> [calls]
#   bench/ab/line_copy_kernels.sh 4096,4096 1,0 4 2 21
#
# Builds in $AB_BUILD (default $TMPDIR/strided-ab-lines) with $CXX (default c++); STRIDED_ISA
# forces the level. x86 only (AVX2).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${AB_BUILD:-${TMPDIR:-/tmp}/strided-ab-lines}
rm -rf "$out/lines"
mkdir -p "$out/lines"
cp -R "$root/include" "$out/lines/"
dispatch="$out/lines/include/strided/detail/simd/transpose_dispatch.hpp"
marker='inline TileKernel tile_kernel(std::size_t es'
grep -q "^$marker" "$dispatch" || { echo "no '$marker' in $dispatch" >&2; exit 1; }
# Rename the real dispatcher and put the line-copying one (which calls it) just before it.
sed -i "s|^$marker|#include \"$here/line_copy_kernels.inl\"\ninline TileKernel tile_kernel_transposing(std::size_t es|" "$dispatch"
cxx=${CXX:-c++}
build() { $cxx -O3 -DNDEBUG -std=c++20 "$@"; }
build -DSTRIDED_AB_SIDE=base -I"$root/include" -c "$here/ab_library.cpp" -o "$out/base.o"
build -DSTRIDED_AB_SIDE=new -I"$out/lines/include" -c "$here/ab_library.cpp" -o "$out/new.o"
build "$here/ab_compare.cpp" "$out/base.o" "$out/new.o" -o "$out/ab_compare" -lpthread
STRIDED_AB_SAME_BYTES=no exec "$out/ab_compare" "$@"
