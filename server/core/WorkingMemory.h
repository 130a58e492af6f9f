#pragma once

namespace chat2sbx {

// Lets this process keep the memory its answers are built in from one request to the next.
// glibc's defaults hand every buffer of more than a few hundred KiB back to the system when it is
// freed (mmap, or the heap's top trimmed), so the next request writes into fresh pages and pays a
// page fault for each: sandbox_list of 1,000 sandboxes (a 640 KB answer, copied a few times on its
// way out) spent 7 of its 10 ms in them. Buffers below kLargeAllocation now come from the heap, and
// up to kKeptFree of free heap stays with the process; the tray still gives everything back when its
// popup closes (malloc_trim). Call once, first thing in main. A no-op without glibc or under ASan
// (its own allocator).
void keepWorkingMemory();

} // namespace chat2sbx
