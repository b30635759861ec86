#!/usr/bin/env bash
# Measures URLSessionTransport's throughput per connection limit against nginx (fast) and a
# 20 ms loopback server. Installs nginx with apt-get if it is missing; listens on 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")"
command -v nginx >/dev/null || { apt-get update -qq && apt-get install -y -qq nginx; }
work=$(mktemp -d)
chmod 755 "$work"   # nginx workers run as another user
python3 - "$work/page.json" <<'PY'
import json, sys
movies = [{"id": i, "title": f"Movie {i}", "overview": "x" * 80, "release_date": "2020-01-01",
           "vote_average": 7.5, "poster_path": f"/p{i}.jpg"} for i in range(20)]
json.dump({"page": 1, "results": movies, "total_pages": 500, "total_results": 10000}, open(sys.argv[1], "w"))
PY
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
sed -e "s|@ROOT@|$work|g" -e "s|@PORT@|$port|g" nginx.conf.template > "$work/nginx.conf"
nginx -c "$work/nginx.conf"
trap 'kill "$(cat "$work/nginx.pid")" 2>/dev/null || true; rm -rf "$work"' EXIT
swift build -c release --product ConnectionsPerHost >/dev/null
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
.build/release/ConnectionsPerHost "http://127.0.0.1:$port/page.json"
