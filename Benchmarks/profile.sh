#!/usr/bin/env bash
# Where the time goes: runs `SuiteTimed get VARIANT` (no allocation counter) under `perf record`
# against nginx on 127.0.0.1, sequentially and with 64 in flight, and prints for each a table of
# the CPU samples by stage (stages.py: decoding, request building, thread hand-offs, socket I/O,
# libcurl, coalescing, …). Installs nginx and perf with apt-get if missing.
#
#   Benchmarks/profile.sh                     # courier-curl
#   VARIANT=ahc REQUESTS=6000 Benchmarks/profile.sh
set -euo pipefail
cd "$(dirname "$0")"
variant=${VARIANT:-courier-curl}

missing=()
command -v nginx >/dev/null || missing+=(nginx)
command -v perf >/dev/null || missing+=(linux-perf)
if ((${#missing[@]})); then
  apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null
fi

echo "== building SuiteTimed (release)" >&2
swift build -c release --product SuiteTimed >&2
bin=$(swift build -c release --show-bin-path)

source ./nginx.sh
"$bin/SuiteTimed" fixture - --to "$work/page.json"
start_nginx

for flight in ${FLIGHTS:-1 64}; do
  perf record -q -F 2000 -g -o "$work/perf.data" "$bin/SuiteTimed" get "$variant" --url "$url" \
    --requests "${REQUESTS:-6000}" --in-flight "$flight" >"$work/result.txt" 2>/dev/null
  echo "### $variant, $flight in flight ($(sed -n 's/^RESULT //p' "$work/result.txt" \
    | python3 -c 'import json, sys; r = json.load(sys.stdin); print("%.0f µs wall, %.0f µs CPU per request" % (r["wall_s"] / r["units"] * 1e6, r["cpu_s"] / r["units"] * 1e6))'))"
  echo
  perf script -i "$work/perf.data" 2>/dev/null | swift demangle --simplified | python3 stages.py
  echo
done
