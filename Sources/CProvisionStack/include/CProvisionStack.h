// The bounds of the calling thread's stack, for Provision's stack guard (see StackGuard.swift).
//
// A C target because the call that reads them on Linux, pthread_getattr_np, is a GNU extension that
// Swift's Glibc module does not import.

#ifndef C_PROVISION_STACK_H
#define C_PROVISION_STACK_H

#include <stddef.h>
#include <stdint.h>

/// The bytes left on the calling thread's stack below the caller's frame, or INTPTR_MAX when they are
/// unknown (the platform doesn't say, or the caller runs on a stack that is not its thread's own).
///
/// The first call on a thread reads the thread's stack bounds (on Linux's main thread that reads
/// /proc/self/maps); later calls on the thread read them from thread-local storage.
intptr_t c_provision_stack_remaining(void);

/// The size of the calling thread's stack in bytes, or 0 when it is unknown.
intptr_t c_provision_stack_size(void);

#endif
