#!/usr/bin/env bash
# Builds cellmotion-soak optimised and runs it with the arguments given: the model-based
# soak (random sessions of scrolling, toggles, batch updates and retargets, every frame
# checked against a model; Tools/docs/development.md, "Soak"). Allocation counts need the optimised build.
#
# Usage: Tools/soak.sh [cellmotion-soak arguments]
#   Tools/soak.sh --seed 7 --seconds 3600 --memory-check   # the long run
#   Tools/soak.sh --replay soak-123.txt                     # a reproduction
# Environment: SWIFT_LOCK (flock file around swift build; default /tmp/cm-swift.lock);
# SOAK_SCRATCH (build folder, default .build; CI passes check-code-size's .build-size so
# the optimised AVX2/FMA kernel built there is reused).
set -euo pipefail
cd "$(dirname "$0")/.."
lock="${SWIFT_LOCK:-/tmp/cm-swift.lock}"
flags=(-c release --scratch-path "${SOAK_SCRATCH:-.build}")
if grep -q -w avx2 /proc/cpuinfo && grep -q -w fma /proc/cpuinfo; then
  flags+=(-Xswiftc -target-cpu -Xswiftc haswell)
fi
flock "$lock" swift build "${flags[@]}" --product cellmotion-soak
exec "$(swift build "${flags[@]}" --show-bin-path)/cellmotion-soak" "$@"
