// Allocation counter by symbol interposition (glibc only). Each replacement adds one to a
// relaxed atomic counter (a lock-free add; ordering across threads is not needed for a
// count read after the measured code) and forwards to glibc's implementation, declared
// here because glibc exports but does not declare them.
#include "alloc_counter.h"

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static _Atomic uint64_t cm_allocations;

static inline void cm_count(void) {
  atomic_fetch_add_explicit(&cm_allocations, 1, memory_order_relaxed);
}

uint64_t cm_alloc_count(void) {
  return atomic_load_explicit(&cm_allocations, memory_order_relaxed);
}

void cm_alloc_reset(void) { atomic_store_explicit(&cm_allocations, 0, memory_order_relaxed); }

void *malloc(size_t size) {
  cm_count();
  return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
  cm_count();
  return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
  cm_count();
  return __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
  cm_count();
  return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
  cm_count();
  return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
  // POSIX: the alignment must be a power of two multiple of sizeof(void *).
  if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
  cm_count();
  void *pointer = __libc_memalign(alignment, size);
  if (pointer == NULL) return ENOMEM;
  *result = pointer;
  return 0;
}
