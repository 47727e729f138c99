// The Swift runtime's `swift_tryRetain`, which loading a weak reference
// uses: it takes a strong reference to a native Swift object unless the
// object is already being destroyed, and returns the object, or null then.
// A store's follower reaches the store through it instead of a weak
// reference (Sources/Chronicle/Store/StoreRelay.swift).
#ifndef CHRONICLE_RETAIN_H
#define CHRONICLE_RETAIN_H

#include <stdbool.h>

extern void *swift_tryRetain(void *object);

/// Retains `object` (a native Swift object) unless its destruction has
/// begun; whether it did.
static inline bool chronicle_try_retain(void *object) { return swift_tryRetain(object) != 0; }

#endif
