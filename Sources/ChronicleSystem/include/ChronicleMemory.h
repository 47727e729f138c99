// glibc's `malloc_trim`, which Swift's Glibc module does not export, for
// returning a large fold's freed pages (Sources/Chronicle/Support/FreedMemory.swift).
// Elsewhere it does nothing.
#ifndef CHRONICLE_MEMORY_H
#define CHRONICLE_MEMORY_H

#if defined(__linux__)
#include <features.h>
#endif

#if defined(__GLIBC__)
#include <malloc.h>

/// Returns the whole free pages of every heap arena to the system.
static inline void chronicle_release_free_memory(void) { (void)malloc_trim(0); }
#else
static inline void chronicle_release_free_memory(void) {}
#endif

#endif
