# bench/lab-sizes.sh: sourced by the benchmarks. `lab_shape SIZE` sets the
# array `args` to the `fabscope lab up` shape of the 648-host (18 spines x 36
# leaves x 18 hosts), 2,048-host (32 x 64 x 32) or 4,096-host (32 x 128 x 32) lab.
lab_shape() {
    case $1 in
        648) args=(--spines 18 --leaves 36 --hosts-per-leaf 18);;
        2048) args=(--spines 32 --leaves 64 --hosts-per-leaf 32);;
        4096) args=(--spines 32 --leaves 128 --hosts-per-leaf 32);;
        *) echo "unknown size $1 (648, 2048 or 4096)" >&2; exit 2;;
    esac
}
