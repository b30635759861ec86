#!/usr/bin/env python3
"""Runs the WebSocket echo benchmarks interleaved in rounds and prints markdown tables.

Both clients talk to one WebSocketEchoServer (started by websocket.sh) over 127.0.0.1: Courier
(CurlTransport) and hummingbird-project's WSClient (swift-websocket). Every case and client runs
in its own process once per round, the order of the clients alternating from round to round.
Timings come from ROUNDS rounds of SuiteTimed (no allocation counter); allocations per unit from
ALLOC_ROUNDS separate rounds of Suite with ordo-one's malloc interposer preloaded. A cell is the
median over rounds (min-max); a ratio Courier / WSClient is paired: within the same round, then
the median (min-max) of those ratios. Ratios are of time per unit: above 1, Courier is slower.

    python3 websocket.py SUITE_BINARY WS_URL    (websocket.sh calls it)

Environment: ROUNDS (5), ALLOC_ROUNDS (1), ROUND_TRIPS (5000 small, a fifth of it for 64 KiB),
MESSAGES (20000 small, a tenth of it for 64 KiB), RESULTS (a file for the raw lines).
"""
import json
import os
import subprocess
import sys
import time

from tables import spread

suite, url = sys.argv[1], sys.argv[2]
timed = os.path.join(os.path.dirname(suite), "SuiteTimed")
env = os.environ
rounds = int(env.get("ROUNDS", 5))
alloc_rounds = int(env.get("ALLOC_ROUNDS", 1))
round_trips = int(env.get("ROUND_TRIPS", 5000))
messages = int(env.get("MESSAGES", 20000))
VARIANTS = ["courier", "wsclient"]
BASELINE = "wsclient"
LARGE = 64 * 1024

# (title, mode, kind, bytes, count, warm-up)
CASES = [
    ("16 B text", "latency", "text", 16, round_trips, 200),
    ("64 KiB binary", "latency", "binary", LARGE, max(1, round_trips // 5), 50),
    ("16 B text", "throughput", "text", 16, messages, 1000),
    ("64 KiB binary", "throughput", "binary", LARGE, max(1, messages // 10), 100),
]

preload = os.path.join(os.path.dirname(suite), "libMallocInterposerSwift.so")
counting_env = dict(env, LD_PRELOAD=preload)
results = {}  # (case index, variant) -> [timed result per round]
counted = {}  # (case index, variant) -> [counted result per allocation round]
raw_lines = []


def run(case, variant, counting):
    _, mode, kind, size, count, warmup = case
    command = [suite if counting else timed, "websocket", variant, "--url", url, "--mode", mode,
               "--kind", kind, "--bytes", str(size), "--count", str(count),
               "--warmup", str(warmup)]
    try:
        done = subprocess.run(command, env=counting_env if counting else env,
                              capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        sys.stderr.write("  %s timed out\n" % " ".join(command[1:]))
        return None
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            raw_lines.append(line[7:])
            return json.loads(line[7:])
    sys.stderr.write("  %s failed (%d): %s\n" % (" ".join(command[1:]), done.returncode,
                                                 done.stderr.strip()[-300:]))
    return None


started = time.time()
for round_index in range(rounds + alloc_rounds):
    counting = round_index >= rounds
    into = counted if counting else results
    for case_index, case in enumerate(CASES):
        shift = round_index % len(VARIANTS)
        for variant in VARIANTS[shift:] + VARIANTS[:shift]:
            into.setdefault((case_index, variant), []).append(run(case, variant, counting))
    sys.stderr.write("%s round %d done, %.0f s, load average %s\n" % (
        "allocation" if counting else "timing", round_index + 1, time.time() - started,
        " ".join("%.2f" % load for load in os.getloadavg())))

if env.get("RESULTS"):
    with open(env["RESULTS"], "w") as file:
        file.write("\n".join(raw_lines) + "\n")


def micros(seconds):
    return "%.1f µs" % (seconds * 1e6) if seconds < 1e-3 else "%.2f ms" % (seconds * 1e3)


def per_unit(result, key):
    return result[key] / result["units"] if result and key in result else None


def paired(case_index, variant, value):
    """value(result) of variant / value(result) of the baseline, round by round."""
    return [value(r) / value(b) if r and b and value(b) else None
            for r, b in zip(results[(case_index, variant)], results[(case_index, BASELINE)])]


def ratio(value):
    return "%.2f" % value


def rows(mode):
    for case_index, (title, case_mode, _, size, count, _) in enumerate(CASES):
        if case_mode != mode:
            continue
        for variant in VARIANTS:
            runs = results[(case_index, variant)]
            allocations = [per_unit(r, "allocations") for r in counted.get((case_index, variant), [])]
            yield case_index, title, size, count, variant, runs, allocations


print("#### Echo round-trip latency (one connection, one message at a time)")
print()
print("| message | client | median round trip | p99 round trip | wall ÷ round trips | "
      "CPU per round trip | allocations per round trip | Courier ÷ WSClient: median | p99 | "
      "CPU |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for case_index, title, size, count, variant, runs, allocations in rows("latency"):
    p50 = [r["p50_ns"] / 1e9 if r else None for r in runs]
    p99 = [r["p99_ns"] / 1e9 if r else None for r in runs]
    if variant == BASELINE:
        ratios = ["1", "1", "1"]
    else:
        ratios = [spread(paired(case_index, variant, lambda r: r["p50_ns"]), ratio),
                  spread(paired(case_index, variant, lambda r: r["p99_ns"]), ratio),
                  spread(paired(case_index, variant, lambda r: r["cpu_s"]), ratio)]
    print("| %s × %d | %s | %s | %s | %s | %s | %s | %s |" % (
        title, count, variant, spread(p50, micros), spread(p99, micros),
        spread([per_unit(r, "wall_s") for r in runs], micros),
        spread([per_unit(r, "cpu_s") for r in runs], micros),
        spread(allocations, lambda v: "%.0f" % v), " | ".join(ratios)))

print()
print("#### Throughput (one connection, messages sent back to back, echoes read concurrently)")
print()
print("| message | client | messages/s | MB/s each way | CPU per message | "
      "allocations per message | Courier ÷ WSClient: wall per message | CPU per message |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for case_index, title, size, count, variant, runs, allocations in rows("throughput"):
    rate = [r["units"] / r["wall_s"] if r else None for r in runs]
    megabytes = [r["units"] * size / r["wall_s"] / 1e6 if r else None for r in runs]
    if variant == BASELINE:
        ratios = ["1", "1"]
    else:
        ratios = [spread(paired(case_index, variant, lambda r: r["wall_s"] / r["units"]), ratio),
                  spread(paired(case_index, variant, lambda r: r["cpu_s"] / r["units"]), ratio)]
    print("| %s × %d | %s | %s | %s | %s | %s | %s |" % (
        title, count, variant, spread(rate, lambda v: "{:,.0f}".format(v)),
        spread(megabytes, lambda v: "%.0f" % v if v >= 10 else "%.2f" % v),
        spread([per_unit(r, "cpu_s") for r in runs], micros),
        spread(allocations, lambda v: "%.0f" % v), " | ".join(ratios)))
