#!/bin/sh
# bench/mesh-rank0.sh [BUILD]: rank 0 of a mesh run (the ranks' coordinator)
# at 1,024 to 4,096 hosts, cover and all-pairs, one process per run so each
# peak memory is that run's (bench/mesh_rank0_bench.cpp says what is done).
# All-pairs stops at 1,024 hosts: rank 0 keeps about 1 KB a flow (1.1 GB for
# the 1,047,552 flows of 1,024 ranks; 4,096 ranks would be 16.8 million).
# Measured 2026-12-05 (2 cores, RelWithDebInfo), rank 0 in all / peak memory:
#   cover      1,024: 0.08 s 12 MB   2,048: 0.20 s 23 MB   4,096: 0.35 s 43 MB
#   all-pairs    256: 0.99 s 101 MB    512: 3.55 s 301 MB  1,024: 18.2 s 1,093 MB
# (before the collector's lookup by round, 512 took 210 s; before the report
# was written a flow at a time, 1,024 peaked at 4.2 GB.)
# Each run also prints the plan message rank 0 broadcasts (an agent takes one
# line of at most 1 MiB): cover 277 KB at 2,048 hosts, 557 KB at 4,096.
set -eu
build=${1:-build}
bin="$build/bench/mesh_rank0_bench"
[ -x "$bin" ] || { echo "mesh-rank0.sh: build $bin first (ninja -C $build mesh_rank0_bench)" >&2; exit 2; }
for n in 1024 2048 4096; do "$bin" "$n" cover; done
for n in 256 512 1024; do "$bin" "$n" all-pairs; done
