#!/usr/bin/env bash
# Fuzzes, with libFuzzer and AddressSanitizer, for a number of seconds, one of:
#   recipe  the strict recipe reader (Recipe.decodeFile) and what the CLI does with a
#           recipe it has read (CellMotionFuzz; the default)
#   kernel  the kernel against the scalar reference on fuzzed recipes, geometries,
#           retargets and times (CellMotionKernelFuzz)
#   update  sequences of batch updates against a brute-force model of the rows
#           (CellMotionUpdateFuzz)
#
# Usage: Tools/fuzz.sh [--target recipe|kernel|update] [seconds] [more libFuzzer arguments]
#        Tools/fuzz.sh [--target ...] --plain [seconds]   (no fuzzer runtime: seeded inputs only)
#        (default 60 s)
#
# Builds the target into .build-fuzz with -sanitize=fuzzer,address and
# -DCELLMOTION_LIBFUZZER (a plain `swift build` never sees these flags). libFuzzer starts
# from the checked-in corpus (Tools/CellMotionFuzz/corpus, read only) and writes what it
# finds to .build-fuzz/corpus (kernel and update: start from and write to
# .build-fuzz/corpus-kernel, .build-fuzz/corpus-update); a crashing input is saved in
# .build-fuzz/artifacts/ and the script exits non-zero. Replay one:
# .build-fuzz/debug/<target> <file>.
# Environment: SWIFT_LOCK (flock file around swift build; default /tmp/cm-swift.lock),
#   FUZZ_CONFIG (debug or release; default debug: slower, same traps on overflow).
set -euo pipefail
cd "$(dirname "$0")/.."

lock="${SWIFT_LOCK:-/tmp/cm-swift.lock}"
target=recipe
if [[ "${1:-}" == "--target" ]]; then
  target="${2:-}"
  shift 2
fi
case "$target" in
  recipe) product=CellMotionFuzz corpus=Tools/CellMotionFuzz/corpus ;;
  kernel) product=CellMotionKernelFuzz corpus= ;;
  update) product=CellMotionUpdateFuzz corpus= ;;
  *) echo "fuzz.sh: --target recipe, kernel or update" >&2; exit 2 ;;
esac

if [[ "${1:-}" == "--plain" ]]; then
  seconds="${2:-60}"
  flock "$lock" swift build --product "$product"
  exec "$(swift build --show-bin-path)/$product" --seconds "$seconds" --seed "$(date +%s)" ${corpus:+"$corpus"}
fi

seconds="${1:-60}"
shift || true

runtime=$(find "$(dirname "$(command -v swift)")/../lib" -name 'libclang_rt.fuzzer-*.a' 2>/dev/null | head -1)
if [[ -z "$runtime" ]]; then
  echo "fuzz.sh: this toolchain has no libFuzzer runtime (libclang_rt.fuzzer-*.a); use --plain" >&2
  exit 2
fi

config="${FUZZ_CONFIG:-debug}"
flock "$lock" swift build -c "$config" --scratch-path .build-fuzz --product "$product" \
  -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -DCELLMOTION_LIBFUZZER
bin="$(swift build -c "$config" --scratch-path .build-fuzz --show-bin-path)/$product"

mkdir -p .build-fuzz/corpus .build-fuzz/artifacts
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"
if [[ "$target" != recipe ]]; then
  # Inputs are random-number streams (FuzzBytes): no dictionary, no checked-in corpus.
  mkdir -p ".build-fuzz/corpus-$target"
  exec "$bin" ".build-fuzz/corpus-$target" \
    -max_total_time="$seconds" -max_len=4096 -rss_limit_mb=2048 -timeout=30 -detect_leaks=0 \
    -artifact_prefix=".build-fuzz/artifacts/$target-" -print_final_stats=1 "$@"
fi
# -rss_limit_mb: the reader must stay far below it whatever the input (inputs are at most
# -max_len bytes; the reader's own limit is 1 MiB). -detect_leaks=0 (and ASAN_OPTIONS): the Swift runtime's
# metadata caches and lazily initialised globals (RecipeSchema.shape) are allocated once
# and kept, which LeakSanitizer reports as leaks of the first input that touches them.
exec "$bin" .build-fuzz/corpus "$corpus" \
  -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 -timeout=10 -detect_leaks=0 \
  -dict=Tools/CellMotionFuzz/recipe.dict -artifact_prefix=.build-fuzz/artifacts/ -print_final_stats=1 "$@"
