#!/usr/bin/env bash
# WebSocket echo latency and throughput: Courier (CurlTransport) against hummingbird-project's
# WSClient (swift-websocket 1.6), both talking to one neutral echo server (WebSocketEchoServer:
# SwiftNIO's WebSocket codec on one event loop) on 127.0.0.1. Builds in release, starts the
# server on a free port, runs websocket.py (both clients in every round, in alternating order;
# timings from SuiteTimed, allocations from a separate round of Suite), stops the server by its
# pid and prints markdown tables.
#
#   Benchmarks/websocket.sh             # 5 rounds: about 2 minutes once built
#   QUICK=1 Benchmarks/websocket.sh     # a smoke run: 1 round, few messages
#
# Environment: ROUNDS (5), ALLOC_ROUNDS (1), ROUND_TRIPS (5000), MESSAGES (20000), RESULTS.
set -euo pipefail
cd "$(dirname "$0")"

if [[ "${QUICK:-0}" == 1 ]]; then
  export ROUNDS=${ROUNDS:-1} ROUND_TRIPS=${ROUND_TRIPS:-500} MESSAGES=${MESSAGES:-2000}
fi

echo "== building (release)" >&2
for product in Suite SuiteTimed WebSocketEchoServer; do
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

echo "### WebSocket echo, Courier against WSClient"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "- machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)," \
  "$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), Linux $(uname -r)"
echo "- $(swift --version 2>/dev/null | head -1); libcurl $(curl --version 2>/dev/null | head -1 | cut -d' ' -f2)"
echo "- load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- settings: ROUNDS=${ROUNDS:-5} ALLOC_ROUNDS=${ALLOC_ROUNDS:-1} ROUND_TRIPS=${ROUND_TRIPS:-5000}" \
  "MESSAGES=${MESSAGES:-20000}"
echo
python3 websocket.py "$bin/Suite" "ws://127.0.0.1:$port"
echo
echo "- load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
