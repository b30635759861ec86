#!/usr/bin/env bash
# Many WebSocket connections through one client: Courier (one CurlTransport) against
# hummingbird-project's WSClient (swift-websocket, on NIO's singleton event loops), both to
# one echo server (WebSocketEchoServer) on 127.0.0.1, under `ulimit -n 16384`. Each client
# runs in a process of its own (WebSocketConnections), which opens COUNT connections (128
# opening at once), holds them idle, runs one round of echoes across all, closes them, and
# reports threads, descriptors and resident memory at each step. Prints a markdown table.
#
#   Benchmarks/websocket-connections.sh                 # 10,000 connections, each client
#   COUNTS="1000 10000" Benchmarks/websocket-connections.sh
#   CLIENTS=courier Benchmarks/websocket-connections.sh
set -euo pipefail
cd "$(dirname "$0")"
ulimit -n 16384

echo "== building (release)" >&2
for product in WebSocketEchoServer WebSocketConnections; do
  swift build -c release --product "$product" >&2
done
bin=$(swift build -c release --show-bin-path)

work=$(mktemp -d)
server_pid=
cleanup() {
  if [[ -n "$server_pid" ]]; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

"$bin/WebSocketEchoServer" >"$work/server.out" 2>"$work/server.err" &
server_pid=$!
for _ in $(seq 100); do grep -q '^PORT ' "$work/server.out" 2>/dev/null && break; sleep 0.05; done
port=$(awk '/^PORT / {print $2}' "$work/server.out")
[[ -n "$port" ]] || { cat "$work/server.err" >&2; echo "the echo server did not start" >&2; exit 1; }

echo "### WebSocket connections through one client, Courier against WSClient"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "- machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)," \
  "$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), Linux $(uname -r)"
echo "- $(swift --version 2>/dev/null | head -1); libcurl $(curl --version 2>/dev/null | head -1 | cut -d' ' -f2)"
echo "- command: \`Benchmarks/websocket-connections.sh\` (ulimit -n $(ulimit -n)); COUNTS=\"${COUNTS:-10000}\" CLIENTS=\"${CLIENTS:-courier wsclient}\""
echo "- load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
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
PY
echo
echo "- load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
