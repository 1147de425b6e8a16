#!/bin/sh
# Times a copy with two builds of the library in one process (bench/ab/ab_compare.cpp): the
# include/ tree of a git revision as `base`, this working tree's as `new`.
#
#   bench/ab/ab_compare.sh <base revision> <shape> <permutation> <element bytes> <threads> [calls]
#   bench/ab/ab_compare.sh HEAD~1 8192,8192 1,0 1 2 31
#
# AB_MAIN=ab_ops builds and runs ab_ops.cpp instead (bench/ab/ab_ops.sh). Builds in $AB_BUILD (default $TMPDIR/strided-ab) with $CXX (default c++). STRIDED_ISA forces
# both builds' level; STRIDED_AB_ISA_base / STRIDED_AB_ISA_new one side's.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
revision=$1
shift
out=${AB_BUILD:-${TMPDIR:-/tmp}/strided-ab}
rm -rf "$out/base"
mkdir -p "$out/base"
git -C "$root" archive "$revision" include | tar -x -C "$out/base"
# A revision from before the pool's light header was split off gets one that forwards to it.
light="$out/base/include/strided/detail/parallel/parallel_for.hpp"
[ -f "$light" ] || printf '#pragma once\n#include "strided/detail/parallel/pool.hpp"\n' >"$light"
main=${AB_MAIN:-ab_compare}
cxx=${CXX:-c++}
build() { $cxx -O3 -DNDEBUG -std=c++20 "$@"; }
build -DSTRIDED_AB_SIDE=base -I"$out/base/include" -c "$here/ab_library.cpp" -o "$out/base.o"
build -DSTRIDED_AB_SIDE=new -I"$root/include" -c "$here/ab_library.cpp" -o "$out/new.o"
build "$here/$main.cpp" "$out/base.o" "$out/new.o" -o "$out/$main" -lpthread
exec "$out/$main" "$@"
