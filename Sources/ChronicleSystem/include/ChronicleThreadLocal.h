// A thread-local pointer read in a few instructions: the construction
// frame every `@Persisted` wrapper's initialiser looks up
// (Sources/Chronicle/Model/ConstructionFrame.swift). Swift has no
// thread-local storage of its own but `pthread_getspecific`, a call into
// the C library on every look-up, several per object made or read.
//
// ELF only (Linux): there the variable is defined here, weak, and the
// linker keeps one of the definitions the Swift modules that use it emit
// (the target's C file, whose own debug information valgrind cannot read
// for a thread-local, stays empty of definitions). Elsewhere — Mach-O,
// where weak thread-local definitions are not something to rely on — the
// frame is found with `pthread_getspecific` as before, and this header
// declares nothing.
#ifndef CHRONICLE_THREAD_LOCAL_H
#define CHRONICLE_THREAD_LOCAL_H

#if defined(__ELF__)
/// This thread's construction frame (unretained; its pthread key holds it
/// for the thread's life), or NULL before the thread's first.
__attribute__((weak)) _Thread_local void *_Nullable chronicle_construction_frame = 0;

/// ``chronicle_construction_frame``.
static inline void *_Nullable chronicle_construction_frame_get(void) {
    return chronicle_construction_frame;
}

/// Sets ``chronicle_construction_frame`` (NULL as the thread exits).
static inline void chronicle_construction_frame_set(void *_Nullable frame) {
    chronicle_construction_frame = frame;
}
#endif

#endif
