#!/usr/bin/env bash
# Courier against an earlier Courier: builds the Suite (release) at BEFORE and at HEAD (the
# committed state), one after the other in one clone kept for next time (its dependencies are
# built once: the first run takes ~20 minutes on 2 cores, later ones a couple), serves the 3 KB page from nginx on 127.0.0.1, and runs `Suite get VARIANT` of both in the
# same rounds, their order alternating, then prints per variant and in-flight count the medians
# per request and the paired ratios after ÷ before (median, min–max).
#
#   Benchmarks/compare.sh BEFORE                      # e.g. Benchmarks/compare.sh 12e942a
#   ROUNDS=15 VARIANTS=courier-curl FLIGHTS=1 Benchmarks/compare.sh BEFORE
#
# Environment: ROUNDS (7), REQUESTS (3000), VARIANTS ("courier-curl courier"), FLIGHTS ("1 64"),
# TREE (the clone: /tmp/courier-compare).
# Timings come from SuiteTimed (no allocation counter) when both commits have it; before it
# existed, from the Suite, whose linked malloc interposer then taxes both builds alike.
set -euo pipefail
before=${1:?usage: Benchmarks/compare.sh BEFORE-COMMIT}
root=$(cd "$(dirname "$0")/.." && pwd)
command -v nginx >/dev/null || { apt-get update -qq && apt-get install -y -qq nginx >/dev/null; }

source "$root/Benchmarks/nginx.sh"

tree=${TREE:-/tmp/courier-compare}
[[ -d "$tree/.git" ]] || git clone -q "$root" "$tree"
git -C "$tree" fetch -q "$root" HEAD
after=$(git -C "$root" rev-parse HEAD)

program=SuiteTimed
git -C "$tree" show "$before:Benchmarks/Package.swift" | grep -q SuiteTimed || program=Suite

# Builds the program at commit $1 and copies it to $2 (with the library it may link). The
# manifests are touched so that SwiftPM reads the source lists again (files come and go).
build() {
  git -C "$tree" checkout -q --detach "$1"
  touch "$tree/Package.swift" "$tree/Benchmarks/Package.swift"
  echo "== building $program at $(git -C "$tree" rev-parse --short HEAD)" >&2
  swift build -c release --package-path "$tree/Benchmarks" --product "$program" >&2
  local bin
  bin=$(swift build -c release --package-path "$tree/Benchmarks" --show-bin-path)
  mkdir -p "$2" && cp "$bin/$program" "$2/Suite"
  cp "$bin/libMallocInterposerSwift.so" "$2/" 2>/dev/null || true
}
build "$before" "$work/bin-before"
build "$after" "$work/bin-after"

LD_LIBRARY_PATH="$work/bin-after" "$work/bin-after/Suite" fixture - --to "$work/page.json"
start_nginx

echo "== $(cut -d' ' -f1-3 /proc/loadavg) load average at start" >&2
for round in $(seq "${ROUNDS:-7}"); do
  for variant in ${VARIANTS:-courier-curl courier}; do
    for flight in ${FLIGHTS:-1 64}; do
      order=(before after)
      ((round % 2 == 0)) && order=(after before)
      for which in "${order[@]}"; do
        result=$(LD_LIBRARY_PATH="$work/bin-$which" "$work/bin-$which/Suite" get "$variant" \
          --url "$url" --requests "${REQUESTS:-3000}" --in-flight "$flight" | sed -n 's/^RESULT //p')
        echo "$round $variant $flight $which $result"
      done
    done
  done
done >"$work/results.txt"

python3 - "$work/results.txt" "$before" <<'PY'
import collections, json, statistics, sys
rounds = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    round_, variant, flight, which, result = line.split(" ", 4)
    rounds[(variant, int(flight), round_)][which] = json.loads(result)
rows = collections.defaultdict(lambda: collections.defaultdict(list))
for (variant, flight, _), pair in rounds.items():
    if len(pair) < 2: continue
    before, after = pair["before"], pair["after"]
    row = rows[(variant, flight)]
    for which, result in pair.items():
        row[which + " wall"].append(result["wall_s"] / result["units"] * 1e6)
        row[which + " cpu"].append(result["cpu_s"] / result["units"] * 1e6)
    row["wall"].append(after["wall_s"] / before["wall_s"])
    row["cpu"].append(after["cpu_s"] / before["cpu_s"])
med = statistics.median
print("| variant | in flight | before (%s) wall / CPU µs | after wall / CPU µs | after ÷ before, wall | CPU |" % sys.argv[2])
print("| --- | ---: | ---: | ---: | ---: | ---: |")
for (variant, flight), row in sorted(rows.items()):
    ratio = lambda k: "%.2f (%.2f–%.2f)" % (med(row[k]), min(row[k]), max(row[k]))
    print("| %s | %d | %.0f / %.0f | %.0f / %.0f | %s | %s |" % (
        variant, flight, med(row["before wall"]), med(row["before cpu"]),
        med(row["after wall"]), med(row["after cpu"]), ratio("wall"), ratio("cpu")))
PY
