#!/usr/bin/env bash
# The code that runs on two threads under ThreadSanitizer: batch updates with
# `TableSimulation.updateThreads = 2` (SplitRebuildTests: rebuilds in two halves, the
# identifiers beside the slides) and the kernel's PairWorker (threadsBitIdentical). A data
# race is reported and fails the run. Debug build in .build-tsan (about 2.5 min clean), the
# tests about 2 min (TSan slows them ten times).
#   bash Tools/check-threads.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=.build-tsan
filter='SplitRebuildTests|threadsBitIdentical'
swift build --build-tests --sanitize=thread --scratch-path "$scratch"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
swift test --skip-build --sanitize=thread --scratch-path "$scratch" --filter "$filter" > "$log" 2>&1 || status=$?
if grep -q "ThreadSanitizer" "$log"; then
  grep -A20 "WARNING: ThreadSanitizer" "$log" | head -60 >&2
  echo "check-threads: ThreadSanitizer reported a data race" >&2
  exit 1
fi
if [ "$status" -ne 0 ]; then
  tail -30 "$log" >&2
  echo "check-threads: the tests failed (status $status)" >&2
  exit "$status"
fi
grep -E "Test run with" "$log" | tail -1
echo "check-threads: no data race"
