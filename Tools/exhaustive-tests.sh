#!/usr/bin/env bash
# The exhaustive randomised sweeps (CELLMOTION_EXHAUSTIVE=1: more random recipes, rounds,
# samples and the 4097-cell batches of every 3D specialisation) on an optimised build,
# where they take about a minute instead of many in debug. CI runs this after the README's
# quick `swift test`. Same tolerances as the quick sweep; only the number of draws grows.
#
# Built for AVX2 and FMA (-target-cpu haswell, as the benchmark is) where the processor has
# them: the README's `swift test` builds without the flag (SSE2), so this is the run that
# tests the AVX code the benchmark measures (the kernel's 32-byte stores, the FMA solves).
#   bash Tools/exhaustive-tests.sh [extra swift test arguments, e.g. --filter Kernel]
set -euo pipefail
cd "$(dirname "$0")/.."
cpu=()
if grep -qw avx2 /proc/cpuinfo 2>/dev/null && grep -qw fma /proc/cpuinfo 2>/dev/null; then
  cpu=(-Xswiftc -target-cpu -Xswiftc haswell)
  echo "exhaustive tests: AVX2/FMA build (-target-cpu haswell)"
else
  echo "exhaustive tests: no AVX2/FMA on this processor: the portable (SSE2) build"
fi
CELLMOTION_EXHAUSTIVE=1 swift test -c release -Xswiftc -enable-testing "${cpu[@]}" \
  --scratch-path .build-exhaustive "$@"
