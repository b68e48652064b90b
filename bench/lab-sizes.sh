# bench/lab-sizes.sh: sourced by the benchmarks. `lab_shape SIZE` sets the
# array `args` to the `fabscope lab up` shape of the 648-host (18 spines x 36
# leaves x 18 hosts) or 2,048-host (32 x 64 x 32) lab.
lab_shape() {
    case $1 in
        648) args=(--spines 18 --leaves 36 --hosts-per-leaf 18);;
        2048) args=(--spines 32 --leaves 64 --hosts-per-leaf 32);;
        *) echo "unknown size $1 (648 or 2048)" >&2; exit 2;;
    esac
}
