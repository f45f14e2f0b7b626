// See include/CProvisionStack.h.

#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE  // pthread_getattr_np
#endif

#include "CProvisionStack.h"

#include <stdint.h>

#if defined(__APPLE__) || defined(__linux__)
#include <pthread.h>

// The calling thread's stack, [low, high), read once per thread; low == 0 until read, and
// high == 0 once reading failed.
static _Thread_local uintptr_t stack_low;
static _Thread_local uintptr_t stack_high;
static _Thread_local int stack_read;

static void read_stack_bounds(void) {
    stack_read = 1;
#if defined(__APPLE__)
    pthread_t self = pthread_self();
    uintptr_t top = (uintptr_t)pthread_get_stackaddr_np(self);
    size_t size = pthread_get_stacksize_np(self);
    stack_high = top;
    stack_low = top - size;
#else
    pthread_attr_t attributes;
    if (pthread_getattr_np(pthread_self(), &attributes) != 0) {
        return;
    }
    void *address = NULL;
    size_t size = 0;
    if (pthread_attr_getstack(&attributes, &address, &size) == 0 && address != NULL) {
        stack_low = (uintptr_t)address;
        stack_high = stack_low + size;
    }
    pthread_attr_destroy(&attributes);
#endif
}

intptr_t c_provision_stack_remaining(void) {
    if (!stack_read) {
        read_stack_bounds();
    }
    // This function's own frame: the caller's stack pointer, give or take a few words.
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    if (here <= stack_low || here >= stack_high) {
        return INTPTR_MAX;
    }
    return (intptr_t)(here - stack_low);
}

intptr_t c_provision_stack_size(void) {
    if (!stack_read) {
        read_stack_bounds();
    }
    return (intptr_t)(stack_high - stack_low);
}

#else

intptr_t c_provision_stack_remaining(void) { return INTPTR_MAX; }

intptr_t c_provision_stack_size(void) { return 0; }

#endif
