// CBLAS: the C interface to BLAS from Debian's libblas-dev (netlib reference BLAS by
// default; OpenBLAS when libopenblas-dev is installed, through Debian's alternatives).
// The cblas_* symbols live in libblas.so.3 itself on Debian: there is no libcblas.
#include <cblas.h>
