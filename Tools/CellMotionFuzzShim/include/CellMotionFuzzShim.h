// libFuzzer's driver entry point, for CellMotionFuzz's main() in libFuzzer builds.
//
// SwiftPM gives an executable's main() another name on Linux (and links `main` to it), so
// libFuzzer's own main() is never used; CellMotionFuzz's @main calls the driver instead.
// Only referenced under CELLMOTION_LIBFUZZER, so plain builds need no fuzzer runtime.
#ifndef CELLMOTION_FUZZ_SHIM_H
#define CELLMOTION_FUZZ_SHIM_H

#include <stddef.h>
#include <stdint.h>

/// Runs libFuzzer (LLVM >= 11) with the command line `*argc`, `*argv` on `callback`.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

/// 1: this shim exists (C targets need a source file).
int cellmotion_fuzz_shim_version(void);

#endif
