#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The calling thread's identity, never `0`: what a lock records as its
/// owner, so that a later check by the same thread (is this thread's write
/// in progress? does it hold the file lock?) is one atomic load and compare.
@inline(__always)
func currentThreadID() -> UInt {
    #if canImport(Darwin)
    UInt(bitPattern: pthread_self())
    #else
    UInt(pthread_self())
    #endif
}
