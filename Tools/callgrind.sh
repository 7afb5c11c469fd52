#!/usr/bin/env bash
# Exact instruction counts per cell for one benchmark scenario under callgrind.
# Collection is toggled on only inside the harness's `timedCall` (the call of a scenario's
# run closure), so process start-up, setup and the machine-peak measurements are
# excluded; instructions per cell = Ir collected / cells evaluated inside timedCall
# (one warm-up call + --runs timed calls, printed by the benchmark).
#
# Usage: Tools/callgrind.sh <scenario-filter> [cell count, default 10000] [runs, default 3]
#   e.g. Tools/callgrind.sh compose/simd 10000
# The filter should select one scenario; with several, the total is over all of them.
set -euo pipefail

if [[ $# -lt 1 ]]; then
  echo "usage: $0 <scenario-filter> [cells] [runs]" >&2
  exit 2
fi
filter="$1"
cells="${2:-10000}"
runs="${3:-3}"

cd "$(dirname "$0")/.."

if ! command -v valgrind >/dev/null 2>&1; then
  echo "valgrind not found: installing it" >&2
  sudo_cmd=""
  [[ $(id -u) -ne 0 ]] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq valgrind
fi

# The ordinary measurement build. valgrind 3.19 cannot read the DWARF 5 that the Swift
# toolchain emits ("unhandled dwarf2 abbrev form code 0x25 ... Possibly corrupted
# debuginfo file") and gives up, so callgrind runs a copy without debug sections; the
# symbol table stays, which is all --toggle-collect needs.
# shellcheck disable=SC2086
swift build -c release -Xswiftc -target-cpu -Xswiftc haswell ${EXTRA_SWIFTC:-}
built="$(swift build -c release -Xswiftc -target-cpu -Xswiftc haswell ${EXTRA_SWIFTC:-} --show-bin-path)/cellmotion-bench"

out="$(mktemp /tmp/cellmotion-callgrind.XXXXXX)"
log="$(mktemp /tmp/cellmotion-callgrind-log.XXXXXX)"
bin="$(mktemp /tmp/cellmotion-bench-nodebug.XXXXXX)"
trap 'rm -f "$out" "$log" "$bin"' EXIT
objcopy --strip-debug "$built" "$bin"

# Mangled Swift name of CellMotionBench.timedCall(_:) contains "timedCall".
valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect='*timedCall*' \
  "$bin" --no-peaks --filter "$filter" --sizes "$cells" --runs "$runs" >"$log" 2>&1 || {
  cat "$log" >&2
  exit 1
}

evaluated="$(grep -o 'cells evaluated in timedCall: [0-9]*' "$log" | awk '{s += $NF} END {print s + 0}')"
ir="$(grep -E '^(summary|totals):' "$out" | head -n 1 | awk '{print $2}')"
grep 'cells evaluated' "$log"
if [[ -z "$ir" || "$evaluated" -eq 0 ]]; then
  echo "could not read Ir total or cell count" >&2
  cat "$log" >&2
  exit 1
fi
echo "Ir collected in timedCall: $ir"
echo "cells evaluated:           $evaluated"
awk -v ir="$ir" -v n="$evaluated" 'BEGIN { printf "instructions per cell:     %.2f\n", ir / n }'
echo "top functions (inclusive of timedCall's callees):"
callgrind_annotate "$out" 2>/dev/null | swift demangle --simplified | grep -E '^ *[0-9,]+ ' | head -n 12
