// Reference counting for the handles' reference to their injector (see WeakInjector.swift).
//
// A handle (`Provider`, `Lazy`, `ObjectFactory`) must not keep its injector alive, and must find out,
// without crashing, whether the injector still is. A Swift `weak` reference does both, but it gives the
// injector a side table, after which every release of the injector (one per handle request) takes the
// runtime's slow path: about 170 instructions a request. These three calls do the same with an unowned
// reference count, which lives in the object's header: the handle keeps the injector's memory (not the
// injector) allocated with it, and takes a strong reference only while the injector is not being
// deinitialized.
//
// They call the Swift runtime's entry points of the same purpose (swift_unownedRetain,
// swift_unownedRelease, swift_tryRetain: the runtime's stable ABI), from a C file so that Swift code
// never declares a runtime function itself.

#ifndef C_PROVISION_RETAIN_H
#define C_PROVISION_RETAIN_H

#include <stdbool.h>

/// Takes an unowned reference to a Swift object: its memory stays allocated (its deinit still runs when
/// its last strong reference goes) until the matching `c_provision_unowned_release`.
void c_provision_unowned_retain(void *object);

/// Drops an unowned reference taken by `c_provision_unowned_retain`; frees the object's memory when it
/// was the last reference of any kind.
void c_provision_unowned_release(void *object);

/// Takes a strong reference to an object the caller holds an unowned reference to, unless its deinit
/// has begun: `false` then, and nothing is taken.
bool c_provision_try_retain(void *object);

#endif
