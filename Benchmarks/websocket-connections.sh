#!/usr/bin/env bash
# Many WebSocket connections through one client: Courier (one CurlTransport) against
# hummingbird-project's WSClient (swift-websocket, on NIO's singleton event loops), both to
# one echo server (WebSocketEchoServer) on 127.0.0.1, under `ulimit -n 16384`. Each client
# runs in a process of its own (WebSocketConnections), which opens COUNT connections (128
# opening at once), holds them idle, runs one round of echoes across all, closes them all at once, and
# reports threads, descriptors and resident memory at each step. Prints a markdown table.
#
#   Benchmarks/websocket-connections.sh                 # 10,000 connections, each client
#   COUNTS="1000 10000" Benchmarks/websocket-connections.sh
#   CLIENTS=courier Benchmarks/websocket-connections.sh
#   CLIENTS=courier ROUNDS=10 COUNTS=1000 Benchmarks/websocket-connections.sh  # memory after each round
#   PINGS=1 Benchmarks/websocket-connections.sh         # Courier with its default keep-alive
#
# ROUNDS and PINGS go to WebSocketConnections (Courier only): ROUNDS=R repeats open, echo and
# close R times (the JSON line's residentKiBAfterRounds); PINGS=1 keeps the default ping every
# 30 seconds, which the runs otherwise turn off, as WSClient's default does.
set -euo pipefail
cd "$(dirname "$0")"
ulimit -n 16384

source ./echo-server.sh
echo_server_start WebSocketConnections
echo_server_header "WebSocket connections through one client, Courier against WSClient"
echo "- command: \`Benchmarks/websocket-connections.sh\` (ulimit -n $(ulimit -n)); COUNTS=\"${COUNTS:-10000}\" CLIENTS=\"${CLIENTS:-courier wsclient}\""
echo
for count in ${COUNTS:-10000}; do
  for client in ${CLIENTS:-courier wsclient}; do
    "$bin/WebSocketConnections" "$client" "ws://127.0.0.1:$port" "$count" >>"$work/results.jsonl"
  done
done
python3 - "$work/results.jsonl" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.startswith("{")]
print("| client | connections | threads before → open | descriptors per connection |"
      " RSS per idle connection | time to open | echo round | time to close | after close: RSS (after malloc_trim),"
      " descriptors, threads (against before) |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
for r in rows:
    b, o, c = r["before"], r["open"], r["afterClose"]
    n = r["connections"]
    mib = lambda kib: f"{kib / 1024:+.1f} MiB"
    echoed = "" if r["echoed"] == n else f" ({r['echoed']:,} echoed)"
    print(f"| {r['client']} | {n:,} | {b['threads']} → {o['threads']}"
          f" | {(o['descriptors'] - b['descriptors']) / n:.2f}"
          f" | {(o['residentKiB'] - b['residentKiB']) / n:.1f} KiB"
          f" | {r['openSeconds']:.2f} s | {r['echoRoundSeconds'] * 1000:.0f} ms{echoed} | {r['closeSeconds']:.2f} s"
          f" | {mib(c['residentKiB'] - b['residentKiB'])} ({mib(r['trimmedResidentKiB'] - b['residentKiB'])}),"
          f" {c['descriptors'] - b['descriptors']:+d}, {c['threads'] - b['threads']:+d} |")
for r in rows:
    if r.get("residentKiBAfterRounds"):
        rounds = ", ".join(f"{(k - r['before']['residentKiB']) / 1024:+.1f}" for k in r["residentKiBAfterRounds"])
        print(f"\n{r['client']}, {r['connections']:,}: resident MiB after each round's close: {rounds}")
PY
echo
echo "- load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
