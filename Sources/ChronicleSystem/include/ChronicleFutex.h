// Linux futexes on words in memory that several processes map, for the
// journal's shared area (Sources/Chronicle/Journal/SharedJournalArea.swift).
// Swift cannot call the variadic `syscall(2)`; these two wrappers can be.
// Elsewhere the header declares nothing, and the area does without.
#ifndef CHRONICLE_FUTEX_H
#define CHRONICLE_FUTEX_H

#if defined(__linux__)
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/// Sleeps while `*word == expected`, until woken or `nanoseconds` pass.
/// Not a private futex: the word may be in a shared mapping.
/// Returns 0 when woken, otherwise the errno (`EAGAIN`: the word was not
/// `expected`; `ETIMEDOUT`; `EINTR`).
static inline int chronicle_futex_wait(uint32_t *word, uint32_t expected, int64_t nanoseconds) {
    struct timespec timeout = { (time_t)(nanoseconds / 1000000000), (long)(nanoseconds % 1000000000) };
    long result = syscall(SYS_futex, word, FUTEX_WAIT, expected, &timeout, NULL, 0);
    return result == 0 ? 0 : errno;
}

/// Wakes up to `count` sleepers on `word` (`INT_MAX`: all of them).
/// Returns how many it woke, or -1.
static inline int chronicle_futex_wake(uint32_t *word, int count) {
    return (int)syscall(SYS_futex, word, FUTEX_WAKE, count, NULL, NULL, 0);
}
#endif

#endif
