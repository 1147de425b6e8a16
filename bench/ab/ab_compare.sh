#!/bin/sh
# Times a copy with two builds of the library in one process (bench/ab/ab_compare.cpp): the
# include/ tree of a git revision as `base`, this working tree's as `new`.
#
#   bench/ab/ab_compare.sh <base revision> <shape> <permutation> <element bytes> <threads> [calls]
#   bench/ab/ab_compare.sh HEAD~1 8192,8192 1,0 1 2 31
#
# Builds in $AB_BUILD (default $TMPDIR/strided-ab) with $CXX (default c++). STRIDED_ISA forces
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
cxx=${CXX:-c++}
build() { $cxx -O3 -DNDEBUG -std=c++20 "$@"; }
build -DSTRIDED_AB_SIDE=base -I"$out/base/include" -c "$here/ab_library.cpp" -o "$out/base.o"
build -DSTRIDED_AB_SIDE=new -I"$root/include" -c "$here/ab_library.cpp" -o "$out/new.o"
build "$here/ab_compare.cpp" "$out/base.o" "$out/new.o" -o "$out/ab_compare" -lpthread
exec "$out/ab_compare" "$@"
