# Sourced by the WebSocket benchmark scripts: builds PRODUCTS (and the echo server) in
# release, starts WebSocketEchoServer (SwiftNIO's WebSocket codec on one event loop) on a free
# port of 127.0.0.1, stops it by its pid on exit, and prints the run's header. Sets `bin`,
# `work` (a scratch folder, removed on exit) and `port`.
#
#   echo_server_start PRODUCT…     build, start, set bin, work and port
#   echo_server_header TITLE       the markdown header: date, commit, machine, toolchain, load

echo_server_start() {
  echo "== building (release)" >&2
  local product
  for product in "$@" WebSocketEchoServer; do
    swift build -c release --product "$product" >&2
  done
  bin=$(swift build -c release --show-bin-path)
  work=$(mktemp -d)
  server_pid=
  trap 'if [[ -n "$server_pid" ]]; then kill "$server_pid" 2>/dev/null || true; fi; rm -rf "$work"' EXIT
  "$bin/WebSocketEchoServer" >"$work/server.out" 2>"$work/server.err" &
  server_pid=$!
  for _ in $(seq 100); do grep -q '^PORT ' "$work/server.out" 2>/dev/null && break; sleep 0.05; done
  port=$(awk '/^PORT / {print $2}' "$work/server.out")
  [[ -n "$port" ]] || { cat "$work/server.err" >&2; echo "the echo server did not start" >&2; exit 1; }
}

echo_server_header() {
  echo "### $1"
  echo
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo "- machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)," \
    "$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), Linux $(uname -r)"
  echo "- $(swift --version 2>/dev/null | head -1); libcurl $(curl --version 2>/dev/null | head -1 | cut -d' ' -f2)"
  echo "- load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
}
