// _AllocCounter: counts heap allocations in the process that links it (only the benchmark
// executable does). It defines malloc, calloc, realloc, posix_memalign, aligned_alloc and
// memalign, which the dynamic linker then binds for every library in the process
// (libswiftCore, Foundation, libblas ...), and forwards them to glibc's __libc_* entry
// points. free is not replaced: glibc's free releases what __libc_* returned.
#ifndef CM_ALLOC_COUNTER_H
#define CM_ALLOC_COUNTER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Allocation calls (malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign)
/// since the start of the process or the last cm_alloc_reset(), all threads.
uint64_t cm_alloc_count(void);

/// Sets the counter back to zero.
void cm_alloc_reset(void);

#ifdef __cplusplus
}
#endif

#endif
