// Header-only target (see include/CellMotionShims.h); the package manager needs one
// source file to build a C target.
#include "CellMotionShims.h"
