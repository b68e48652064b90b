"""bench/perf_vs_perftest_report.py FIGURES SECONDS WALL: the figures of
bench/perf-vs-perftest.sh side by side (medians, spread, ratio of medians with
a bootstrap interval, per-round ratios, CPU seconds per GB moved).

FIGURES has one line per run: ROUND TEST TOOL VALUE CLIENT_CPU_S SERVER_CPU_S
VM_BUSY_S BYTES RETRIES (h1's completer_retry_err: retransmission timeouts)
[WIRE_MBPS] (bandwidth runs: h1's sent_bytes rate in the run's steady state,
the same counter for both tools, to judge their own figures by)."""

import math
import random
import statistics
import sys

GOALS = {"bw": ("MB/s", "higher", 0.95), "write_lat": ("us", "lower", 1.10), "send_lat": ("us", "lower", 1.10)}


def load(path):
    """The runs by test, tool and round, and how many runs gave no figure (a
    line with the round alone, or a value that is not a finite positive number)."""
    rows, missing = {}, 0
    for line in open(path):
        parts = line.split()
        if len(parts) not in (9, 10):
            missing += bool(parts)
            continue
        rnd, test, tool = int(parts[0]), parts[1], parts[2]
        value, cli, srv, vm, nbytes, retries = (float(x) for x in parts[3:9])
        wire = float(parts[9]) if len(parts) == 10 else math.nan
        if not math.isfinite(value) or value <= 0:  # perftest prints 0 or inf when a run failed
            missing += 1
            value = math.nan  # kept for the wire rate, which does not depend on the tool's figure
        rows.setdefault(test, {}).setdefault(tool, {})[rnd] = (value, cli, srv, vm, nbytes, retries, wire)
    return rows, missing


def bootstrap(pairs, draws=2000, seed=1):
    rng = random.Random(seed)
    ratios = []
    for _ in range(draws):
        sample = [rng.choice(pairs) for _ in pairs]
        ratios.append(statistics.median(a for a, _ in sample) / statistics.median(b for _, b in sample))
    ratios.sort()
    return ratios[int(0.025 * draws)], ratios[int(0.975 * draws) - 1]


def per_gb(runs, field):
    out = []
    for r in runs:
        if r[4] > 0:
            out.append((r[1] + r[2] if field == "proc" else r[3]) / (r[4] / 1e9))
    return statistics.median(out) if out else float("nan")


def main():
    rows, missing = load(sys.argv[1])
    seconds, wall = sys.argv[2], sys.argv[3]
    nrounds = max((max(t) for test in rows.values() for t in test.values()), default=0)
    if not nrounds:
        print(f"no figures in {sys.argv[1]}: see output.log beside it", file=sys.stderr)
        return 1
    print(f"== Soft-RoCE VM (2 vCPUs), h1 -> h2: {nrounds} rounds, order alternating, "
          f"bandwidth runs {seconds} s, bench wall {wall} s")
    if missing:
        print(f"   {missing} runs gave no figure (left out; errors.txt beside FIGURES says why)")
    verdicts = []
    for test, (unit, better, goal) in GOALS.items():
        tools = rows.get(test, {})
        if "perftest" not in tools:
            continue
        print(f"-- {test} ({unit}; goal {'>=' if better == 'higher' else '<='} {goal:.2f} of perftest)")
        for tool, runs in tools.items():
            vals = [v[0] for v in runs.values() if math.isfinite(v[0])]
            if not vals:
                print(f"   {tool:9s} no figures")
                continue
            q = statistics.quantiles(vals, n=4) if len(vals) > 1 else [vals[0]] * 3
            line = (f"   {tool:9s} median {statistics.median(vals):8.2f}  min {min(vals):8.2f}  "
                    f"max {max(vals):8.2f}  IQR {q[0]:.2f}-{q[2]:.2f}  n {len(vals)}")
            if test == "bw":
                line += (f"  CPU s/GB: processes {per_gb(runs.values(), 'proc'):6.2f}"
                         f"  whole VM {per_gb(runs.values(), 'vm'):6.2f}"
                         f"  retries {int(sum(v[5] for v in runs.values()))}")
            print(line)
        for tool in tools:
            if tool == "perftest":
                continue
            common = sorted(set(tools[tool]) & set(tools["perftest"]))
            pairs = [(tools[tool][r][0], tools["perftest"][r][0]) for r in common
                     if math.isfinite(tools[tool][r][0]) and math.isfinite(tools["perftest"][r][0])]
            if not pairs:
                continue
            dropped = [r for r in common if not math.isfinite(tools["perftest"][r][0])]
            ratio = statistics.median(a for a, _ in pairs) / statistics.median(b for _, b in pairs)
            lo, hi = bootstrap(pairs)
            per_round = [a / b for a, b in pairs]
            ok = ratio >= goal if better == "higher" else ratio <= goal
            stable = (lo >= goal if better == "higher" else hi <= goal) if ok else \
                (hi < goal if better == "higher" else lo > goal)
            print(f"   {tool}/perftest: ratio of medians {ratio:.3f}  bootstrap 95% [{lo:.3f}, {hi:.3f}]  "
                  f"per round median {statistics.median(per_round):.3f} min {min(per_round):.3f} "
                  f"max {max(per_round):.3f}  -> {'met' if ok else 'NOT met'}"
                  f"{'' if stable else ' (interval straddles the goal)'}")
            verdicts.append((test, tool, ok))
            wires = [(tools[tool][r][6], tools["perftest"][r][6]) for r in common
                     if math.isfinite(tools[tool][r][6]) and math.isfinite(tools["perftest"][r][6])]
            if wires:
                lo, hi = bootstrap(wires)
                print(f"   on the wire (h1's sent_bytes in steady state, headers included; every round, "
                      f"also the {len(dropped)} without a perftest figure): {tool} median "
                      f"{statistics.median(a for a, _ in wires):.2f}, perftest "
                      f"{statistics.median(b for _, b in wires):.2f} MB/s, ratio of medians "
                      f"{statistics.median(a for a, _ in wires) / statistics.median(b for _, b in wires):.3f} "
                      f"[{lo:.3f}, {hi:.3f}], n {len(wires)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
