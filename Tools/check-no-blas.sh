#!/usr/bin/env bash
# The library without its BLAS trait: builds with `--disable-default-traits`, links no
# BLAS (checked on the test bundle's NEEDED entries), and the tests that reach the BLAS
# path pass (the stage tests then cover .simd and check that .blas is a typed error; the
# kernel limits test the backend choice). The rest of the suite never touches the trait
# and runs in the README's `swift test` (CI's budget: the whole suite twice took 4 minutes).
#   bash Tools/check-no-blas.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=.build-noblas
swift build --build-tests --disable-default-traits --scratch-path "$scratch"
bundle="$scratch/debug/CellMotionPackageTests.xctest"
if readelf -d "$bundle" | grep -i "NEEDED.*blas"; then
  echo "check-no-blas: the test bundle links a BLAS library without the BLAS trait" >&2
  exit 1
fi
for exe in cellmotion cellmotion-bench; do
  if readelf -d "$scratch/debug/$exe" | grep -i "NEEDED.*blas"; then
    echo "check-no-blas: $exe links a BLAS library without the BLAS trait" >&2
    exit 1
  fi
done
swift test --skip-build --disable-default-traits --scratch-path "$scratch" \
  --filter "ComposeWithParentTests|ProjectCornersTests|BLASTraitTests|KernelLimitsTests"
echo "check-no-blas: built and tested without BLAS; nothing links libblas"
