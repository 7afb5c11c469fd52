#!/usr/bin/env bash
# Profiles one benchmark scenario with perf (cpu-clock sampling: this VM exposes no
# hardware counters), then prints the hottest symbols, Swift names demangled.
#
# Usage: Tools/perf.sh <scenario-filter> [more cellmotion-bench arguments]
#   e.g. Tools/perf.sh compose/simd --sizes 100000
# Environment: PERF_FREQ (default 999), PERF_TOP (lines shown, default 40),
#   EXTRA_SWIFTC (extra arguments for swift build).
set -euo pipefail

if [[ $# -lt 1 ]]; then
  echo "usage: $0 <scenario-filter> [cellmotion-bench arguments...]" >&2
  exit 2
fi
filter="$1"
shift

cd "$(dirname "$0")/.."

if ! command -v perf >/dev/null 2>&1; then
  echo "perf not found: installing linux-perf" >&2
  sudo_cmd=""
  [[ $(id -u) -ne 0 ]] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq linux-perf
fi

# Release build with debug info and the AVX2/FMA target (flags on the command line, never
# in Package.swift).
# shellcheck disable=SC2086
swift build -c release -Xswiftc -target-cpu -Xswiftc haswell -Xswiftc -g ${EXTRA_SWIFTC:-}
bin="$(swift build -c release -Xswiftc -target-cpu -Xswiftc haswell -Xswiftc -g ${EXTRA_SWIFTC:-} --show-bin-path)/cellmotion-bench"

data="$(mktemp /tmp/cellmotion-perf.XXXXXX.data)"
trap 'rm -f "$data"' EXIT

# --no-peaks keeps the machine-peak measurements (large buffer fills) out of the profile.
perf record -e cpu-clock -F "${PERF_FREQ:-999}" -g -o "$data" -- "$bin" --no-peaks --filter "$filter" "$@"
# Flat profile (self time per symbol). For call graphs rerun with PERF_GRAPH=1.
graph="none"
[[ -n "${PERF_GRAPH:-}" ]] && graph="graph"
perf report -i "$data" --no-children --stdio --sort symbol -g "$graph" 2>/dev/null \
  | swift demangle --simplified \
  | grep -v '^$' \
  | cut -c1-160 \
  | head -n "${PERF_TOP:-40}"
