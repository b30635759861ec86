#!/usr/bin/env python3
"""Runs the Suite's network benchmarks interleaved in rounds and prints a markdown table.

Every variant runs in its own process (so that peak memory is its own) once per round; the
order of the variants rotates from round to round. A table row is the median over rounds
with min-max, and the ratio to the group's baseline is paired: variant / baseline within the
same round, then the median (min-max) of those ratios.

Timings come from ROUNDS rounds of SuiteTimed, which has no allocation counter; allocation
counts from ALLOC_ROUNDS separate rounds of Suite, which links and preloads ordo-one's malloc
interposer (a counter slows the client that allocates more, so its timings are not used).

The 3 KB GET groups also get the floor: libcurl driven from C (variant floor-curl) plus the
page's decoding alone (variant decode), summed per round; a second table gives each client's
paired ratios to that floor and to AsyncHTTPClient.

    python3 suite.py SUITE_BINARY BASE_URL WORK_DIR    (run.sh calls it; env: see below)

Environment: ROUNDS (5), ALLOC_ROUNDS (1), REQUESTS (3000 per GET variant and round),
BODY_REQUESTS (100), PAGES (1000), BURSTS (20), CACHE_FILL (20000), DOWNLOAD_PATH (100mb.bin),
ONLY (indexes of the groups to run, e.g. "0,1"; all by default), RESULTS (a file for the
raw lines).
"""
import json
import os
import subprocess
import sys
import time

from tables import spread

suite, base_url, work = sys.argv[1], sys.argv[2], sys.argv[3]
timed = os.path.join(os.path.dirname(suite), "SuiteTimed")
env = os.environ
rounds = int(env.get("ROUNDS", 5))
alloc_rounds = int(env.get("ALLOC_ROUNDS", 1))
requests = env.get("REQUESTS", "3000")
get_variants = ["raw", "raw-delegate", "async-data", "naive", "courier", "courier-session",
                "courier-curl", "ahc", "floor-curl", "decode"]
FLOOR = ("floor-curl", "decode")  # the floor's two halves, summed
download_variants = ["urlsession", "ahc", "courier", "courier-curl"]

GROUPS = [
    ("GET + decode 3 KB JSON, sequential", "get", get_variants, "raw",
     ["--requests", requests, "--in-flight", "1"]),
    ("GET + decode 3 KB JSON, 64 in flight", "get", get_variants, "raw",
     ["--requests", requests, "--in-flight", "64"]),
    ("GET 1 MB body into memory, sequential", "get", ["raw", "courier", "courier-curl", "ahc"], "raw",
     ["--path", "1mb.bin", "--decode", "data", "--requests", env.get("BODY_REQUESTS", "100"),
      "--warmup", "10"]),
    ("download to disk (%s)" % env.get("DOWNLOAD_PATH", "100mb.bin"), "download",
     download_variants, "urlsession",
     ["--path", env.get("DOWNLOAD_PATH", "100mb.bin"), "--dir", work]),
    ("paging through %s pages" % env.get("PAGES", "1000"), "paging",
     ["raw", "courier", "courier-prefetch"], "raw", ["--pages", env.get("PAGES", "1000")]),
    ("64 identical concurrent GETs (10 ms server)", "coalescing", ["off", "on"],
     "off", ["--bursts", env.get("BURSTS", "20")]),
    ("GET + decode 3 KB JSON through HTTPCache, sequential", "cache",
     ["network", "memory-hit", "disk-hit", "revalidated"], "network",
     ["--requests", requests, "--dir", work]),
    ("filling a 16 MiB HTTPCache with distinct 3 KB pages", "cache", ["fill"], "fill",
     ["--requests", env.get("CACHE_FILL", "20000"), "--dir", work]),
]

if env.get("ONLY"):
    chosen = [int(index) for index in env["ONLY"].split(",")]
    GROUPS = [group for index, group in enumerate(GROUPS) if index in chosen]

preload = os.path.join(os.path.dirname(suite), "libMallocInterposerSwift.so")
counting_env = dict(env, LD_PRELOAD=preload)
results = {}  # (group index, variant) -> [timed result per round]
counted = {}  # (group index, variant) -> [counted result per allocation round]
raw_lines = []


def run(benchmark, variant, args, counting):
    if variant == "decode":
        benchmark, variant = "decode", "alone"
    program = suite if counting else timed
    command = [program, benchmark, variant, "--url", base_url] + args
    done = subprocess.run(command, env=counting_env if counting else env, capture_output=True,
                          text=True, timeout=600)
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            raw_lines.append(line[7:])
            return json.loads(line[7:])
    sys.stderr.write("  %s %s failed (%d): %s\n" % (benchmark, variant, done.returncode,
                                                     done.stderr.strip()[-300:]))
    return None


started = time.time()
for round_index in range(rounds + alloc_rounds):
    counting = round_index >= rounds
    into = counted if counting else results
    for group_index, (title, benchmark, variants, _, args) in enumerate(GROUPS):
        shift = round_index % len(variants)
        for variant in variants[shift:] + variants[:shift]:
            into.setdefault((group_index, variant), []).append(
                run(benchmark, variant, args, counting))
    sys.stderr.write("%s round %d done, %.0f s, load average %s\n" % (
        "allocation" if counting else "timing", round_index + 1, time.time() - started,
        os.getloadavg()))

if env.get("RESULTS"):
    with open(env["RESULTS"], "w") as file:
        file.write("\n".join(raw_lines) + "\n")


def per_unit(result, key):
    return result[key] / result["units"] if result and key in result else None


def seconds(value):
    if value >= 1:
        return "%.2f s" % value
    if value >= 1e-3:
        return "%.1f ms" % (value * 1e3)
    return "%.0f µs" % (value * 1e6)


def ratio(value):
    return "%.2f" % value


def mebibytes(value):
    return "%.1f MB" % (value / 1024)


def notes(benchmark, runs):
    ok = [r for r in runs if r]
    if not ok:
        return "failed"
    if benchmark == "get":
        return "peak RSS " + spread([r.get("peak_rss_kib") for r in ok], mebibytes)
    if benchmark == "download":
        return "peak RSS growth " + spread(
            [r["peak_rss_kib"] - r["baseline_rss_kib"] for r in ok], mebibytes)
    if benchmark == "paging":
        return "RSS after page 100 → last: %s → %s; peak growth %s" % (
            spread([r["rss_at_100_kib"] - r["baseline_rss_kib"] for r in ok], mebibytes),
            spread([r["rss_at_end_kib"] - r["baseline_rss_kib"] for r in ok], mebibytes),
            spread([r["peak_rss_kib"] - r["baseline_rss_kib"] for r in ok], mebibytes))
    if benchmark == "cache":
        note = "answered from the cache: %s" % ("yes" if all(r["from_cache"] for r in ok) else "no")
        if "cache_memory_kib" in ok[0]:
            note += "; cache memory %s of %s; peak RSS growth %s" % (
                spread([r["cache_memory_kib"] for r in ok], mebibytes),
                mebibytes(ok[0]["cache_budget_kib"]),
                spread([r["peak_rss_kib"] - r["baseline_rss_kib"] for r in ok], mebibytes))
        return note
    if benchmark == "coalescing":
        return "requests reaching the server per burst: " + spread(
            [r["server_requests"] / r["units"] for r in ok], lambda v: "%.1f" % v)
    return ""


print("| benchmark | variant | wall per unit | CPU per unit | allocations per unit | "
      "wall ÷ baseline | CPU ÷ baseline | notes |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |")
for group_index, (title, benchmark, variants, baseline, _) in enumerate(GROUPS):
    base = results[(group_index, baseline)]
    for variant in variants:
        runs = results[(group_index, variant)]
        unit = next((r["unit"] for r in runs if r), "unit")
        wall = [per_unit(r, "wall_s") for r in runs]
        cpu = [per_unit(r, "cpu_s") for r in runs]
        allocations = [per_unit(r, "allocations") for r in counted.get((group_index, variant), [])]
        wall_ratio = [w / b["wall_s"] * b["units"] if w and b else None for w, b in zip(wall, base)]
        cpu_ratio = [c / b["cpu_s"] * b["units"] if c and b and b["cpu_s"] else None
                     for c, b in zip(cpu, base)]
        name = variant + (" (baseline)" if variant == baseline else "")
        print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            title + ", per " + unit, name, spread(wall, seconds), spread(cpu, seconds),
            spread(allocations, lambda v: "%.0f" % v),
            "1" if variant == baseline else spread(wall_ratio, ratio),
            "1" if variant == baseline else spread(cpu_ratio, ratio),
            notes(benchmark, runs)))


def floor_ratios():
    """Each client's paired ratios to the floor (floor-curl + decode, same round) and to
    AsyncHTTPClient, for the groups that have both."""
    print()
    print("| benchmark | variant | wall ÷ floor | CPU ÷ floor | wall ÷ AHC | CPU ÷ AHC | "
          "wall ÷ raw-delegate | CPU ÷ raw-delegate |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for group_index, (title, _, variants, _, _) in enumerate(GROUPS):
        if not all((group_index, v) in results for v in FLOOR + ("ahc",)):
            continue
        halves = [results[(group_index, v)] for v in FLOOR]
        floor = [{"wall": sum(per_unit(r, "wall_s") for r in parts),
                  "cpu": sum(per_unit(r, "cpu_s") for r in parts)}
                 if all(parts) else None for parts in zip(*halves)]
        def timed(variant):
            return [{"wall": per_unit(r, "wall_s"), "cpu": per_unit(r, "cpu_s")} if r else None
                    for r in results.get((group_index, variant), [])]

        ahc, delegate = timed("ahc"), timed("raw-delegate")
        print("| %s | floor = floor-curl + decode | 1 | 1 | %s | %s | | |" % (
            title, spread([f["wall"] / a["wall"] for f, a in zip(floor, ahc) if f and a], ratio),
            spread([f["cpu"] / a["cpu"] for f, a in zip(floor, ahc) if f and a], ratio)))
        for variant in variants:
            if variant in FLOOR:
                continue
            runs = timed(variant)

            def paired(key, against):
                return spread([r[key] / b[key] for r, b in zip(runs, against) if r and b], ratio)

            print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                title, variant, paired("wall", floor), paired("cpu", floor),
                paired("wall", ahc), paired("cpu", ahc), paired("wall", delegate),
                paired("cpu", delegate)))


floor_ratios()
