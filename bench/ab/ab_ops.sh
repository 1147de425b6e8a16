#!/bin/sh
# Times casts, map and zip_with with two builds of the library in one process
# (bench/ab/ab_ops.cpp): the include/ tree of a git revision as `base`, this working tree's as
# `new`. Builds as bench/ab/ab_compare.sh does (same variables).
#
#   bench/ab/ab_ops.sh <base revision> <rows> <cols> <threads> [calls]
#   bench/ab/ab_ops.sh HEAD~1 4096 4096 1 15
AB_MAIN=ab_ops exec "$(dirname "$0")/ab_compare.sh" "$@"
