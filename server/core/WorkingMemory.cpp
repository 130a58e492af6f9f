#include "core/WorkingMemory.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace chat2sbx {

namespace {
constexpr int kLargeAllocation = 4 * 1024 * 1024;   // allocations from this size up are mapped apart
constexpr int kKeptFree = 16 * 1024 * 1024;         // free heap kept before trimming it back
} // namespace

void keepWorkingMemory()
{
#if defined(__GLIBC__)
    ::mallopt(M_MMAP_THRESHOLD, kLargeAllocation);
    ::mallopt(M_TRIM_THRESHOLD, kKeptFree);
#endif
}

} // namespace chat2sbx
