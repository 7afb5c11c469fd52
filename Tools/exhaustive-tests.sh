#!/usr/bin/env bash
# The exhaustive randomised sweeps (CELLMOTION_EXHAUSTIVE=1: more random recipes, rounds,
# samples and the 4097-cell batches of every 3D specialisation) on an optimised build,
# where they take about a minute instead of many in debug. CI runs this after the README's
# quick `swift test`. Same tolerances as the quick sweep; only the number of draws grows.
#   bash Tools/exhaustive-tests.sh [extra swift test arguments, e.g. --filter Kernel]
set -euo pipefail
cd "$(dirname "$0")/.."
CELLMOTION_EXHAUSTIVE=1 swift test -c release -Xswiftc -enable-testing \
  --scratch-path .build-exhaustive "$@"
