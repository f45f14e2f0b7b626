// The heap memory in use, for di-bench's memory-per-binding report (see Footprint.swift).
//
// A C target because glibc's mallinfo2, which reports it, is not in Swift's Glibc module.

#ifndef C_HEAP_USAGE_H
#define C_HEAP_USAGE_H

#include <stddef.h>

/// The bytes malloc has handed out and not had back: in every arena, and in the blocks it mapped on
/// its own. 0 where the C library doesn't say (not glibc).
size_t c_heap_bytes_in_use(void);

#endif
