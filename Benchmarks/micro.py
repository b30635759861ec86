#!/usr/bin/env python3
"""Summarises the ordo-one micro-benchmarks (`swift package benchmark --format markdown`,
read from the file given) per request: each of their iterations is 1,000 requests.

    python3 micro.py OUTPUT.md
"""
import re
import sys

PER_ITERATION = 1000
SCALES = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}

benchmarks = {}  # name -> {"wall": (p0, p50, p100) in µs, "mallocs": (p0, p50, p100)}
name = None
for line in open(sys.argv[1], encoding="utf-8"):
    if line.startswith("### "):
        name = line[4:].strip()
        continue
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if name is None or len(cells) < 9:
        continue
    metric = cells[0]
    match = re.search(r"\((K|M|G)\)", metric)
    scale = SCALES[match.group(1)] if match else 1
    try:
        p0, p50, p100 = (float(cells[i]) * scale / PER_ITERATION for i in (1, 3, 7))
    except ValueError:
        continue
    if metric.startswith("Time (wall clock) (μs)"):
        benchmarks.setdefault(name, {})["wall"] = (p0, p50, p100)
    elif metric.startswith("Time (wall clock) (ms)"):
        benchmarks.setdefault(name, {})["wall"] = (p0 * 1e3, p50 * 1e3, p100 * 1e3)
    elif metric.startswith("Malloc (total)"):
        benchmarks.setdefault(name, {})["mallocs"] = (p0, p50, p100)


def wall(name):
    p0, p50, p100 = benchmarks[name]["wall"]
    return "%.2f µs (%.2f–%.2f)" % (p50, p0, p100)


def mallocs(name):
    return "%.0f" % benchmarks[name]["mallocs"][1]


pipelines = sorted({n.rsplit(", ", 1)[0] for n in benchmarks if n.endswith(("1 caller", "64 callers"))})
if pipelines:
    print("| in-memory pipeline, per request | 1 caller: wall | 64 callers: wall | "
          "speed-up 1 → 64 callers | allocations (1 / 64) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for pipeline in pipelines:
        one, many = pipeline + ", 1 caller", pipeline + ", 64 callers"
        if one in benchmarks and many in benchmarks:
            speedup = benchmarks[one]["wall"][1] / benchmarks[many]["wall"][1]
            print("| %s | %s | %s | %.2f× | %s / %s |" % (
                pipeline, wall(one), wall(many), speedup, mallocs(one), mallocs(many)))
    print()

builds = [n for n in benchmarks if "client.urlRequest(for:)" in n]
if builds:
    print("| request building, per request | client.urlRequest(for:) | hand-written | "
          "Courier ÷ hand-written | allocations (Courier / hand-written) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for courier in builds:
        prefix = courier.split(", client.urlRequest")[0]
        hand = next((n for n in benchmarks if n.startswith(prefix + ", hand-written")), None)
        if hand:
            ratio = benchmarks[courier]["wall"][1] / benchmarks[hand]["wall"][1]
            print("| %s | %s | %s | %.2f | %s / %s |" % (
                prefix, wall(courier), wall(hand), ratio, mallocs(courier), mallocs(hand)))
