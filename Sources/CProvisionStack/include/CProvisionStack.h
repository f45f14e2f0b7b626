// The bounds of the calling thread's stack, for Provision's stack guard (see StackGuard.swift).
//
// A C target because the call that reads them on Linux, pthread_getattr_np, is a GNU extension that
// Swift's Glibc module does not import, and because Swift has no thread-local storage of its own that
// a check on the request path could read in a few instructions.

#ifndef C_PROVISION_STACK_H
#define C_PROVISION_STACK_H

#include <stddef.h>
#include <stdint.h>

#include "CProvisionRetain.h"

/// The calling thread's stack, [low, high): read once per thread by the first check on it. `high` is 0
/// when the bounds are unknown (the platform doesn't say, or reading them failed).
struct c_provision_stack_bounds {
    uintptr_t low;
    uintptr_t high;
    int read;
};

#if defined(__APPLE__) || defined(__linux__)

/// This thread's bounds. Thread-local in the initial-exec model, so that a check computes its address
/// from the thread pointer and an offset, with no call. (A library loaded with dlopen takes glibc's
/// static TLS surplus for it: these 24 bytes fit.)
extern _Thread_local struct c_provision_stack_bounds c_provision_stack __attribute__((tls_model("initial-exec")));

/// Reads this thread's bounds into `c_provision_stack` (on Linux's main thread that reads
/// /proc/self/maps). Called once per thread, by the first check on it.
void c_provision_stack_read_bounds(void);

/// The bytes left on the calling thread's stack below the caller's frame, or INTPTR_MAX when they are
/// unknown (the platform doesn't say, or the caller runs on a stack that is not its thread's own).
///
/// Inline: it runs on every dynamic edge of a resolution and every handle read, where a call to a
/// function of another object file (and its thread-local lookups) cost more than the check itself.
static inline intptr_t c_provision_stack_remaining(void) {
    struct c_provision_stack_bounds *bounds = &c_provision_stack;
    if (__builtin_expect(!bounds->read, 0)) {
        c_provision_stack_read_bounds();
    }
    // This frame: the caller's stack pointer, give or take a few words.
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    if (here <= bounds->low || here >= bounds->high) {
        return INTPTR_MAX;
    }
    return (intptr_t)(here - bounds->low);
}

#else

static inline intptr_t c_provision_stack_remaining(void) { return INTPTR_MAX; }

#endif

/// The size of the calling thread's stack in bytes, or 0 when it is unknown.
intptr_t c_provision_stack_size(void);

#endif
