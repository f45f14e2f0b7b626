// Each thread's slot for the object di-bench's measuring loops keep (see `fold(_:into:)` in
// Support.swift).
//
// A C target because Swift has no thread-local variables: one global slot, written by every thread of
// the throughput scenarios, let two threads read the same previous object and both release it (a
// singleton freed while the injector still published it), and made every thread write one cache line.

#ifndef C_KEPT_RESULT_H
#define C_KEPT_RESULT_H

/// The calling thread's slot: the retained address of the last object it kept, or NULL.
extern __thread void *c_kept_result;

/// The address of the calling thread's slot. Inline: a thread-local address in an executable is one
/// instruction, so a measuring loop pays no more than it did for a global slot.
static inline void **c_kept_result_slot(void) { return &c_kept_result; }

#endif
