// See include/CProvisionStack.h.

#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE  // pthread_getattr_np
#endif

#include "CProvisionStack.h"

#include <stdint.h>

#if defined(__APPLE__) || defined(__linux__)
#include <pthread.h>

_Thread_local struct c_provision_stack_bounds c_provision_stack __attribute__((tls_model("initial-exec")));

void c_provision_stack_read_bounds(void) {
    struct c_provision_stack_bounds *bounds = &c_provision_stack;
    bounds->read = 1;
#if defined(__APPLE__)
    pthread_t self = pthread_self();
    uintptr_t top = (uintptr_t)pthread_get_stackaddr_np(self);
    size_t size = pthread_get_stacksize_np(self);
    bounds->high = top;
    bounds->low = top - size;
#else
    pthread_attr_t attributes;
    if (pthread_getattr_np(pthread_self(), &attributes) != 0) {
        return;
    }
    void *address = NULL;
    size_t size = 0;
    if (pthread_attr_getstack(&attributes, &address, &size) == 0 && address != NULL) {
        bounds->low = (uintptr_t)address;
        bounds->high = bounds->low + size;
    }
    pthread_attr_destroy(&attributes);
#endif
}

intptr_t c_provision_stack_size(void) {
    struct c_provision_stack_bounds *bounds = &c_provision_stack;
    if (!bounds->read) {
        c_provision_stack_read_bounds();
    }
    return (intptr_t)(bounds->high - bounds->low);
}

#else

intptr_t c_provision_stack_size(void) { return 0; }

#endif
