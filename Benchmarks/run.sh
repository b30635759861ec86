#!/usr/bin/env bash
# Courier's benchmark suite, one command: installs nginx (and wrk) with apt-get if missing,
# serves a 3 KB TMDB-shaped JSON page, a 1 MB and a 100 MB file from nginx on 127.0.0.1,
# checks nginx's own capacity with wrk, runs the ordo-one micro-benchmarks and the network
# suite (release builds, variants interleaved over rounds), stops nginx by its pid and prints
# markdown tables of medians (min–max) and paired ratios, with the load average. Timings come
# from SuiteTimed (no allocation counter), allocation counts from separate rounds of Suite.
#
#   Benchmarks/run.sh                 # the full run, about 12 minutes once built on 2 cores
#   QUICK=1 Benchmarks/run.sh         # a smoke run, about a minute once built
#
# Environment: ROUNDS (5), REQUESTS (3000), BODY_REQUESTS (100), PAGES (1000), BURSTS (20), CACHE_FILL (20000),
# DOWNLOAD_PATH (100mb.bin), BENCHMARK_SECONDS (per micro-benchmark; 2 or 1), MICRO=0 to
# skip the micro-benchmarks, SUITE=0 to skip the network suite, RESULTS (raw lines, a file).
set -euo pipefail
cd "$(dirname "$0")"

if [[ "${QUICK:-0}" == 1 ]]; then
  export ROUNDS=${ROUNDS:-2} REQUESTS=${REQUESTS:-300} BODY_REQUESTS=${BODY_REQUESTS:-10}
  export PAGES=${PAGES:-100} BURSTS=${BURSTS:-5} DOWNLOAD_PATH=${DOWNLOAD_PATH:-1mb.bin}
  export BENCHMARK_SECONDS=${BENCHMARK_SECONDS:-0.1}
fi

missing=()
command -v nginx >/dev/null || missing+=(nginx)
command -v wrk >/dev/null || missing+=(wrk)
if ((${#missing[@]})); then
  apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null
fi

echo "== building (release)" >&2
swift build -c release --product Suite >&2
swift build -c release --product SuiteTimed >&2
bin=$(swift build -c release --show-bin-path)

source ./nginx.sh
"$bin/Suite" fixture - --to "$work/page.json"
head -c $((1024 * 1024)) /dev/urandom >"$work/1mb.bin"
head -c $((100 * 1024 * 1024)) /dev/urandom >"$work/100mb.bin"
mkdir -p "$work/downloads"
start_nginx

echo "## Courier benchmarks"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "- machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)," \
  "$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), Linux $(uname -r)"
echo "- $(swift --version 2>/dev/null | head -1); $(nginx -v 2>&1); $(wrk -v 2>&1 | head -1 | cut -d' ' -f1-2)"
echo "- load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- settings: ROUNDS=${ROUNDS:-5} REQUESTS=${REQUESTS:-3000} BODY_REQUESTS=${BODY_REQUESTS:-100}" \
  "PAGES=${PAGES:-1000} BURSTS=${BURSTS:-20} DOWNLOAD_PATH=${DOWNLOAD_PATH:-100mb.bin}"
echo
echo "### The server's own capacity (wrk, 3 s each, page.json)"
echo
for connections in 1 64; do
  rate=$(wrk -t1 -c"$connections" -d3s "${url}page.json" | awk '/Requests\/sec/ {print $2}')
  echo "- nginx with $connections connection(s): $rate requests/s"
done
echo

if [[ "${MICRO:-1}" != 0 ]]; then
  echo "== micro-benchmarks (ordo-one, release)" >&2
  swift package benchmark --format markdown --no-progress >"$work/micro.md" 2>&1 \
    || { cat "$work/micro.md" >&2; exit 1; }
  echo "### In-memory pipeline and request building (ordo-one benchmark; medians, min–max)"
  echo
  python3 micro.py "$work/micro.md"
  echo
fi

if [[ "${SUITE:-1}" != 0 ]]; then
  echo "== network suite" >&2
  echo "### Network (one process per variant and round; median (min–max) over rounds; ratios paired by round)"
  echo
  python3 suite.py "$bin/Suite" "$url" "$work/downloads"
  echo
fi
echo "- load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
