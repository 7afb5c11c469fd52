#!/usr/bin/env bash
# Builds cellmotion-soak optimised and runs it with the arguments given: the model-based
# soak (random sessions of scrolling, toggles, batch updates and retargets, every frame
# checked against a model; README, "Soak"). Allocation counts need the optimised build.
#
# Usage: Tools/soak.sh [cellmotion-soak arguments]
#   Tools/soak.sh --seed 7 --seconds 3600 --memory-check   # the long run
#   Tools/soak.sh --replay soak-123.txt                     # a reproduction
# Environment: SWIFT_LOCK (flock file around swift build; default /tmp/cm-swift.lock).
set -euo pipefail
cd "$(dirname "$0")/.."
lock="${SWIFT_LOCK:-/tmp/cm-swift.lock}"
flock "$lock" swift build -c release --product cellmotion-soak
exec "$(swift build -c release --show-bin-path)/cellmotion-soak" "$@"
