#include "CellMotionFuzzShim.h"

int cellmotion_fuzz_shim_version(void) { return 1; }
