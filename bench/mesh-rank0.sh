#!/bin/sh
# bench/mesh-rank0.sh [BUILD]: rank 0 of a mesh run (the ranks' coordinator)
# at 1,024 to 4,096 hosts, cover and all-pairs, one process per run so each
# peak memory is that run's (bench/mesh_rank0_bench.cpp says what is done).
# All-pairs stops at 1,024 hosts: its report is written as one JSON document
# in memory, about 10 times its size (4.2 GB at 1,024 hosts; 17 GB at 2,048).
set -eu
build=${1:-build}
bin="$build/bench/mesh_rank0_bench"
[ -x "$bin" ] || { echo "mesh-rank0.sh: build $bin first (ninja -C $build mesh_rank0_bench)" >&2; exit 2; }
for n in 1024 2048 4096; do "$bin" "$n" cover; done
for n in 256 512 1024; do "$bin" "$n" all-pairs; done
