// See include/CProvisionRetain.h.

#include "CProvisionRetain.h"

#include <stddef.h>

// The Swift runtime's entry points (swift/Runtime/HeapObject.h), declared with the C calling
// convention they use, for opaque pointers to heap objects. `swift_tryRetain` returns the object, or
// NULL when its deinit has begun.
extern void *swift_unownedRetain(void *object);
extern void swift_unownedRelease(void *object);
extern void *swift_tryRetain(void *object);

void c_provision_unowned_retain(void *object) { (void)swift_unownedRetain(object); }

void c_provision_unowned_release(void *object) { swift_unownedRelease(object); }

bool c_provision_try_retain(void *object) { return swift_tryRetain(object) != NULL; }
