#!/usr/bin/env python3
"""The tables and the plot of BENCHMARKS.md, from the raw results of scripts/bench.

Reads .build-bench/results (ordo-one's JMH export of the block-cost
benchmarks, tactus-lv2bench's JSON, callgrind's instruction counts, the
render timings), prints the tables, replaces the text between the markers
of BENCHMARKS.md with them, and draws ns per block against pattern size.
Standard library and matplotlib only.
"""

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
from datetime import datetime, timezone

BEGIN = "<!-- bench:results:begin (scripts/bench-report.py writes from here to the end marker) -->"
END = "<!-- bench:results:end -->"
SIZES = [16, 1000, 10000, 100000]
FRAMES = [64, 256, 1024]
POLICIES = ["on-change", "every-block"]


def block_costs(path):
    """{(kind, policy, frames, notes): {"p50", "mean", "events", "samples"}}, ns per block."""
    results = {}
    for element in json.load(open(path)):
        name = element["benchmark"].split("BlockCost.", 1)[1]
        parts = name.split("/")
        kind, policy = parts[0], (parts[1] if parts[0] == "tactus" else "-")
        frames, notes = int(parts[-2]), int(parts[-1])
        time = element["secondaryMetrics"]["Time (wall clock)"]
        events = element["secondaryMetrics"].get("MIDI events")
        # One iteration is 1,000 blocks; JMH reports it in microseconds: ns per block.
        results[(kind, policy, frames, notes)] = {
            "p50": time["scorePercentiles"]["50.0"],
            "mean": time["score"],
            "events": events["scorePercentiles"]["50.0"] if events else None,
            "samples": len(time["rawData"][0]),
        }
    return results


def block_instructions(path):
    """{(kind, policy, frames, notes): instructions per block}, from block-cost-count under callgrind."""
    counts = {}
    for line in open(path):
        kind, policy, frames, notes, blocks, count = line.split()
        counts[(kind, policy, int(frames), int(notes))] = int(count) / int(blocks)
    return counts


def instructions(path):
    """{(send, label): instructions per run()}"""
    counts = {}
    for line in open(path):
        send, label, collected, blocks = line.rstrip("\n").split("\t")
        counts[(send, label)] = int(collected) / int(blocks) if collected else None
    return counts


def renders(results):
    """{script: [seconds of each run]}, and the events of the hour's log."""
    seconds = {}
    for line in open(os.path.join(results, "render.tsv")):
        script, _, t0, t1 = line.split()
        seconds.setdefault(script, []).append(float(t1) - float(t0))
    events = int(open(os.path.join(results, "render-events.txt")).read().strip() or 0)
    return seconds, events


def machine():
    model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    memory = next((int(l.split()[1]) for l in open("/proc/meminfo") if l.startswith("MemTotal")), 0)
    def run(*cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout.strip()
        except OSError:
            return "?"
    swift = run(os.environ.get("SWIFT", "swift"), "--version").splitlines()
    swift = swift[0] if swift else "?"
    packages = run("dpkg-query", "-W", "-f", "${Package} ${Version}\\n", "x42-plugins", "qmidiarp", "liblilv-0-0", "valgrind")
    virtual = run("systemd-detect-virt") or "none"
    return {
        "cpu": f"{model}, {os.cpu_count()} cores",
        "memory": f"{memory / 1048576:.0f} GiB",
        "kernel": f"Linux {platform.release()}",
        "virtualization": virtual,
        "swift": swift,
        "packages": ", ".join(packages.splitlines()),
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }


def ns(x):
    return "-" if x is None else (f"{x:,.0f}" if x >= 100 else f"{x:.1f}")


def ratio(x):
    return "-" if x is None else (f"{x:,.0f}×" if x >= 100 else f"{x:.2f}×")


def table(header, rows, align=None):
    align = align or ["l"] + ["r"] * (len(header) - 1)
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---:" if a == "r" else "---" for a in align) + " |"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def report(results, seconds_taken):
    costs = block_costs(os.path.join(results, "block-cost.jmh.json"))
    block_counts = block_instructions(os.path.join(results, "block-instructions.tsv"))
    runs = {send: json.load(open(os.path.join(results, f"run-{send}.json"))) for send in POLICIES}
    counts = instructions(os.path.join(results, "instructions.tsv"))
    render_seconds, render_events = renders(results)
    m = machine()
    out = []
    verdicts = []

    out.append(f"Measured {m['date']} on {m['cpu']}, {m['memory']}, {m['kernel']} "
               f"(virtualization: {m['virtualization']}); {m['swift']}; {m['packages']}.")
    if seconds_taken:
        out.append(f"`make bench` took {seconds_taken // 60} min {seconds_taken % 60:02d} s, builds included.")

    # 1. The core, and the seed algorithm.
    out.append("\n### The core's cost per block, and the seed algorithm's\n")
    out.append("Nanoseconds per block: the median over 1,000-block batches (ordo-one/benchmark, "
               "wall clock, release). Patterns at a constant density of four onsets a beat, so every size "
               "plays the same notes per block (the last column: MIDI events per 1,000 blocks).\n")
    for frames in FRAMES:
        rows = []
        for notes in SIZES:
            on = costs.get(("tactus", "on-change", frames, notes), {}).get("p50")
            every = costs.get(("tactus", "every-block", frames, notes), {}).get("p50")
            seed = costs.get(("seed", "-", frames, notes), {}).get("p50")
            events = costs.get(("tactus", "on-change", frames, notes), {}).get("events")
            seed_events = costs.get(("seed", "-", frames, notes), {}).get("events")
            rows.append([f"{notes:,}", ns(on), ns(every), ns(seed), ratio(seed / on if seed and on else None),
                         ratio(seed / every if seed and every else None),
                         f"{events:.0f} / {seed_events:.0f}" if events is not None and seed_events is not None else "-"])
        out.append(f"**{frames} frames a block**\n")
        out.append(table(["notes", "Tactus, position on change", "Tactus, position every block", "seed algorithm",
                          "seed ÷ Tactus (on change)", "seed ÷ Tactus (every block)", "events: Tactus / seed"], rows))
        out.append("")

    out.append("Instructions per block, counted by callgrind in the same loops (`block-cost-count`): "
               "the same comparison without the machine's noise.\n")
    rows = []
    for notes in SIZES:
        cells = [f"{notes:,}"]
        for policy in POLICIES:
            cells += [ns(block_counts.get(("tactus", policy, f, notes))) for f in FRAMES]
        seed = block_counts.get(("seed", "-", 256, notes))
        on = block_counts.get(("tactus", "on-change", 256, notes))
        cells += [ns(seed), ratio(seed / on if seed and on else None)]
        rows.append(cells)
    out.append(table(["notes"] + [f"Tactus, {p.replace('-', ' ')}, {f}" for p in POLICIES for f in FRAMES]
                     + ["seed, 256", "seed ÷ Tactus (256, on change)"], rows))
    out.append("")

    out.append("How Tactus's cost grows with the pattern: cost at n notes ÷ cost at 16 notes, in time / in "
               "instructions. Times come from separate processes a few seconds apart, so on a busy machine "
               "they carry its noise; the instructions do not.\n")
    rows = []
    worst_time = worst_count = 0.0
    for policy in POLICIES:
        for frames in FRAMES:
            base = costs.get(("tactus", policy, frames, 16), {}).get("p50")
            base_count = block_counts.get(("tactus", policy, frames, 16))
            cells = []
            for notes in SIZES:
                c = costs.get(("tactus", policy, frames, notes), {}).get("p50")
                k = block_counts.get(("tactus", policy, frames, notes))
                g = c / base if c and base else None
                h = k / base_count if k and base_count else None
                if notes == 100000:
                    worst_time = max(worst_time, g or 0)
                    worst_count = max(worst_count, h or 0)
                cells.append(f"{ratio(g)} / {ratio(h)}")
            rows.append([f"{policy.replace('-', ' ')}, {frames} frames"] + cells)
    out.append(table(["Tactus"] + [f"{n:,} notes" for n in SIZES], rows))
    verdicts.append(("Per-block cost at 100,000 notes ≤ 2× that at 16 notes",
                     f"at most {worst_time:.2f}× in time, {worst_count:.2f}× in instructions "
                     f"(every block size, both position policies)", worst_time <= 2 and worst_count <= 2))
    seed_ratios = [costs[("seed", "-", f, 10000)]["p50"] / costs[("tactus", p, f, 10000)]["p50"]
                   for f in FRAMES for p in POLICIES
                   if ("seed", "-", f, 10000) in costs and ("tactus", p, f, 10000) in costs]
    count_ratios = [block_counts[("seed", "-", 256, 10000)] / block_counts[("tactus", p, 256, 10000)]
                    for p in POLICIES if ("seed", "-", 256, 10000) in block_counts and ("tactus", p, 256, 10000) in block_counts]
    if seed_ratios and count_ratios:
        verdicts.append(("The seed algorithm ≥ 100× slower than Tactus at 10,000 notes",
                         f"{min(seed_ratios):,.0f}× to {max(seed_ratios):,.0f}× in time (every block size, both "
                         f"policies); {min(count_ratios):,.0f}× to {max(count_ratios):,.0f}× in instructions (256 frames)",
                         min(seed_ratios) >= 100 and min(count_ratios) >= 100))

    # 2. run() through lilv.
    for send in POLICIES:
        r = runs[send]
        ref = r["plugins"][0]
        out.append(f"\n### run() through lilv, position {'once at the start' if send == 'on-change' else 'every block'}\n")
        out.append(f"tactus-lv2bench: {r['blocks']:,} blocks of {r['frames']} frames at {r['rate']:.0f} Hz, "
                   f"{r['tempo']:.0f} bpm, after {r['warmup']:,} warm-up blocks, the plugins interleaved block by "
                   f"block. Clock: {r['clock']} ({r['nsPerTick']:.4f} ns a tick); reading it around nothing "
                   f"takes {r['clockCost']['typical']:.1f} ns (typical), median {r['clockCost']['median']:.1f} ns. "
                   f"Raw figures include that reading; *net* ones have it taken off. *Typical* is the mean "
                   f"of the fastest 99.9% of blocks. Instructions: callgrind, inside run() only.\n")
        rows = []
        for p in r["plugins"]:
            count = counts.get((send, p["label"]))
            ref_count = counts.get((send, ref["label"]))
            rows.append([
                p["label"], f"{p['noteOns']:,}", ns(p["raw"]["min"]), ns(p["raw"]["median"]), ns(p["raw"]["p99"]),
                ns(p["raw"]["max"]), ns(p["raw"]["typical"]), ns(p["net"]["typical"]),
                ratio(ref["net"]["typical"] / p["net"]["typical"]) if p["net"]["typical"] else "-",
                f"{count:,.0f}" if count else "-",
                ratio(ref_count / count) if count and ref_count else "-",
            ])
        out.append(table(["plugin", "note-ons", "min ns", "median ns", "p99 ns", "max ns", "typical ns",
                          "net typical ns", f"{ref['label']} ÷ plugin (net)", "instructions", f"{ref['label']} ÷ plugin (instructions)"], rows))
        if send == "on-change":
            by = {p["label"]: p for p in r["plugins"]}
            t, x, q = by.get("Tactus"), by.get("x42 stepseq"), by.get("QMidiArp seq")
            if t and x:
                net = t["net"]["typical"] / x["net"]["typical"]
                raw = t["raw"]["median"] / x["raw"]["median"]
                ins = counts.get((send, "Tactus"), 0) / counts.get((send, "x42 stepseq"), 1)
                verdicts.append(("Tactus run() ≤ 0.5× x42 stepseq's (position on change, same note density)",
                                 f"{net:.2f}× net typical, {ins:.2f}× instructions ({raw:.2f}× raw median, "
                                 f"a {r['clockCost']['typical']:.0f} ns clock reading included in both)", net <= 0.5 and ins <= 0.5))
            if t and q:
                verdicts.append(("Tactus run() far below QMidiArp seq's",
                                 f"{t['net']['typical'] / q['net']['typical']:.3f}× net typical, "
                                 f"{counts.get((send, 'Tactus'), 0) / counts.get((send, 'QMidiArp seq'), 1):.3f}× instructions",
                                 t["net"]["typical"] / q["net"]["typical"] <= 0.1))

    # 2b. Net of the floor: an empty run() (eg-fifths) through the same host, same blocks.
    floor_rows = []
    for send in POLICIES:
        by = {p["label"]: p for p in runs[send]["plugins"]}
        t, x, f = by.get("Tactus"), by.get("x42 stepseq"), by.get("floor (eg-fifths)")
        if not (t and x and f):
            continue
        tf, xf, ff = t["raw"]["typical"], x["raw"]["typical"], f["raw"]["typical"]
        ratio_net = (tf - ff) / (xf - ff) if xf > ff else float("nan")
        floor_rows.append([send, ns(ff), ns(tf), ns(xf), f"{ratio_net:.2f}×", f"{tf / ff:.2f}×",
                           f"{counts.get((send, 'Tactus'), 0):,.0f}", f"{counts.get((send, 'floor (eg-fifths)'), 0):,.0f}"])
        if send == "every-block":
            verdicts.append(("Position every block: Tactus run() ≤ 0.5× x42 stepseq net of the floor, and ≤ 2× the floor gross",
                             f"{ratio_net:.2f}× net of the floor; {tf / ff:.2f}× the floor gross ({ns(tf)} ns against {ns(ff)} ns)",
                             ratio_net <= 0.5 and tf / ff <= 2))
        else:
            verdicts.append(("Position on change: Tactus run() ≤ 0.4× x42 stepseq net of the floor",
                             f"{ratio_net:.2f}× net of the floor; {tf / ff:.2f}× the floor gross", ratio_net <= 0.4))
    if floor_rows:
        out.append("\n### run() net of the floor\n")
        out.append("The floor is the mean cost (typical) of an empty `run()`, eg-fifths from lv2-examples, through the "
                   "same bench host at the same block size over the same session. *Net of the floor* takes it off both "
                   "plugins: (Tactus − floor) ÷ (x42 stepseq − floor).\n")
        out.append(table(["position", "floor ns", "Tactus ns", "x42 stepseq ns", "Tactus ÷ x42 (net of floor)",
                          "Tactus ÷ floor (gross)", "Tactus instructions", "floor instructions"], floor_rows))

    # 3. Offline rendering.
    out.append("\n### Offline rendering\n")
    out.append(f"`tactus render` of one hour of audio (48 kHz, 120 bpm, 2,700,000 blocks of 64 frames, "
               f"examples/demo.pattern, {render_events:,} events written to a file), three runs each, the whole "
               f"process timed. The second row is the same hour from a host that sends its position every "
               f"block:\n")
    rows = []
    for script, label in [("one-hour", "position on change"), ("one-hour-every-block", "position every block")]:
        runs = render_seconds.get(script)
        if runs:
            median, best = statistics.median(runs), min(runs)
            rows.append([label, f"{median:.3f}", f"{best:.3f}", f"{3600 / median:,.0f}×"])
    out.append(table(["script", "seconds, median of 3", "seconds, best of 3", "× realtime (median)"], rows))
    median = statistics.median(render_seconds["one-hour"])
    verdicts.append(("Offline render ≥ 10,000× realtime", f"{3600 / median:,.0f}× (median of 3)", 3600 / median >= 10000))
    if render_seconds.get("one-hour-every-block"):
        every = statistics.median(render_seconds["one-hour-every-block"])
        verdicts.append(("Offline render with the position every block ≥ 10,000× realtime", f"{3600 / every:,.0f}× (median of 3)",
                         3600 / every >= 10000))

    # 4. The Standard MIDI File reader, beside mido.
    smf = os.path.join(results, "smf-read.tsv")
    if os.path.exists(smf):
        rows = []
        ours = None
        for line in open(smf):
            reader, size, notes, best, median = line.split()
            rows.append([reader, f"{int(size):,}", f"{int(notes):,}", f"{float(best):.2f}", f"{float(median):.2f}"])
            if reader == "tactus":
                ours = float(median)
        out.append("\n### Reading a Standard MIDI File\n")
        out.append("The reader alone (no pattern building) on one 1 MB file that `tactus export` wrote "
                   "(131,072 notes), 50 runs (`tactus-smf-bench`), beside mido 1.2 reading the same file "
                   "5 times (`scripts/mido-read-time.py`):\n")
        out.append(table(["reader", "bytes", "notes", "ms, best", "ms, median"], rows))
        if ours is not None:
            verdicts.append(("The SMF reader reads a 1 MB file in under 10 ms", f"{ours:.2f} ms (median of 50)", ours < 10))

    out.append("\n### Targets\n")
    out.append(table(["target", "measured", "met"], [[a, b, "yes" if ok else "**no**"] for a, b, ok in verdicts],
                     align=["l", "l", "l"]))
    out.append("\n![ns per block against pattern size](docs/benchmarks-block-cost.svg)")
    return "\n".join(out), costs


def plot(costs, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    matplotlib.rcParams["svg.hashsalt"] = "tactus"  # stable ids: the file changes only when the numbers do
    fig, ax = plt.subplots(figsize=(10, 5.2))
    colours = {64: "#1b9e77", 256: "#d95f02", 1024: "#7570b3"}
    for frames in FRAMES:
        for kind, policy, style, label in [
            ("tactus", "on-change", "-", "Tactus, position on change"),
            ("tactus", "every-block", ":", "Tactus, position every block"),
            ("seed", "-", "--", "seed algorithm"),
        ]:
            xs = [n for n in SIZES if (kind, policy, frames, n) in costs]
            ys = [costs[(kind, policy, frames, n)]["p50"] for n in xs]
            if xs:
                ax.plot(xs, ys, style, marker="o", markersize=4, color=colours[frames], label=f"{label}, {frames} frames")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(SIZES, [f"{n:,}" for n in SIZES])
    ax.minorticks_off()
    ax.set_xlabel("notes in the pattern (constant density: 4 onsets a beat)")
    ax.set_ylabel("ns per block (median of 1,000-block batches)")
    ax.set_title("One block's cost: Tactus, O(log n + k), against the seed algorithm, O(n)")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.tight_layout()
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    fig.savefig(path, format="svg", metadata={"Date": None})


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--results", required=True)
    parser.add_argument("--markdown", help="BENCHMARKS.md: the text between its markers is replaced")
    parser.add_argument("--plot", help="where to draw the plot (SVG)")
    parser.add_argument("--seconds", type=int, default=0, help="how long the whole run took")
    args = parser.parse_args()

    text, costs = report(args.results, args.seconds)
    print(text)
    if args.plot:
        plot(costs, args.plot)
        print(f"\nplot: {args.plot}")
    if args.markdown:
        doc = open(args.markdown).read()
        if BEGIN not in doc or END not in doc:
            sys.exit(f"{args.markdown}: the markers are missing; expected\n{BEGIN}\n...\n{END}")
        head, rest = doc.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        open(args.markdown, "w").write(head + BEGIN + "\n\n" + text + "\n\n" + END + tail)
        print(f"results written into {args.markdown}")


if __name__ == "__main__":
    main()
