// CRC-32C with the processor's own instruction, for the checksum that
// frames every journal record (Sources/Chronicle/Support/CRC32C.swift):
// SSE 4.2's `crc32` on x86-64 (checked at run time with `cpuid`), ARMv8's
// `crc32c` where the compiler targets it (every Apple arm64 processor).
// Swift has no way to emit either instruction. Where neither is there,
// `chronicle_crc32c_hardware_available` returns 0 and the Swift table
// method is used.
#ifndef CHRONICLE_CRC32C_H
#define CHRONICLE_CRC32C_H

#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__)
// The compiler's builtins, not <nmmintrin.h>: in a module, that header
// declares them only when the whole target is built for SSE 4.2.
#include <cpuid.h>

/// 1 if this processor has the instruction, else 0.
static inline int chronicle_crc32c_hardware_available(void) {
    unsigned int eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    return (ecx & bit_SSE4_2) != 0;
}

/// The CRC-32C of `count` bytes at `bytes`, continuing from `crc` (the
/// result of an earlier call, or 0). Only if
/// `chronicle_crc32c_hardware_available()`.
__attribute__((target("sse4.2")))
static inline uint32_t chronicle_crc32c_hardware(uint32_t crc, const void *bytes, size_t count) {
    const unsigned char *p = (const unsigned char *)bytes;
    uint64_t state = (uint32_t)~crc;
    while (count >= 8) {
        uint64_t word;
        __builtin_memcpy(&word, p, 8);
        state = __builtin_ia32_crc32di(state, word);
        p += 8;
        count -= 8;
    }
    uint32_t small = (uint32_t)state;
    while (count > 0) {
        small = __builtin_ia32_crc32qi(small, *p);
        p += 1;
        count -= 1;
    }
    return ~small;
}

#elif defined(__aarch64__) && defined(__ARM_FEATURE_CRC32)
#include <arm_acle.h>

static inline int chronicle_crc32c_hardware_available(void) { return 1; }

static inline uint32_t chronicle_crc32c_hardware(uint32_t crc, const void *bytes, size_t count) {
    const unsigned char *p = (const unsigned char *)bytes;
    uint32_t state = ~crc;
    while (count >= 8) {
        uint64_t word;
        __builtin_memcpy(&word, p, 8);
        state = __crc32cd(state, word);
        p += 8;
        count -= 8;
    }
    while (count > 0) {
        state = __crc32cb(state, *p);
        p += 1;
        count -= 1;
    }
    return ~state;
}

#else

static inline int chronicle_crc32c_hardware_available(void) { return 0; }

static inline uint32_t chronicle_crc32c_hardware(uint32_t crc, const void *bytes, size_t count) {
    (void)bytes;
    (void)count;
    return crc;
}

#endif

#endif
