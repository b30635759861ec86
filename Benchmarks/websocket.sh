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

source ./echo-server.sh
echo_server_start Suite SuiteTimed
echo_server_header "WebSocket echo, Courier against WSClient"
echo "- settings: ROUNDS=${ROUNDS:-5} ALLOC_ROUNDS=${ALLOC_ROUNDS:-1} ROUND_TRIPS=${ROUND_TRIPS:-5000}" \
  "MESSAGES=${MESSAGES:-20000}"
echo
python3 websocket.py "$bin/Suite" "ws://127.0.0.1:$port"
echo
echo "- load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
