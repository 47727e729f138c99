#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch

/// Calls a handler soon after a file is written, and at least every
/// `fallback` whatever happens: how a journal follows the commits other
/// processes append without the app polling.
///
/// The notification is inotify (`IN_MODIFY`) on Linux and a dispatch
/// file-system object source (`.write`, `.extend`) on Apple platforms,
/// delivered on `queue`. The fallback timer covers what notifications miss:
/// file systems that send none (network file systems, which the journal
/// does not support anyway), a notification system out of resources, or a
/// watch that could not be set up. A handler call says "look", not "there is
/// something": the caller catches up, which costs O(1) when nothing is new.
///
/// `@unchecked Sendable`: the sources are only created in `init` and only
/// cancelled after; dispatch sources may be cancelled from any thread.
final class FileChangeWatcher: @unchecked Sendable {
    private let sources: [any DispatchSourceProtocol]

    /// Starts watching `path`; `onChange` runs on `queue`.
    init(path: String, fallback: Duration, queue: DispatchQueue, onChange: @escaping @Sendable () -> Void) {
        var sources: [any DispatchSourceProtocol] = []
        if let notification = Self.notificationSource(path: path, queue: queue, onChange: onChange) {
            sources.append(notification)
        }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let interval = DispatchTimeInterval.nanoseconds(Int(fallback / .nanoseconds(1)))
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(10))
        timer.setEventHandler(handler: onChange)
        sources.append(timer)
        self.sources = sources
        for source in sources { source.activate() }
    }

    deinit { cancel() }

    /// Stops watching. A handler call already under way may still finish.
    func cancel() {
        for source in sources where !source.isCancelled { source.cancel() }
    }

    #if canImport(Darwin)
    private static func notificationSource(path: String, queue: DispatchQueue,
                                           onChange: @escaping @Sendable () -> Void) -> (any DispatchSourceProtocol)? {
        let fd = open(path, O_EVTONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        let source = DispatchSource.makeFileSystemObjectSource(fileDescriptor: fd, eventMask: [.write, .extend], queue: queue)
        source.setEventHandler(handler: onChange)
        source.setCancelHandler { _ = close(fd) }
        return source
    }
    #else
    private static func notificationSource(path: String, queue: DispatchQueue,
                                           onChange: @escaping @Sendable () -> Void) -> (any DispatchSourceProtocol)? {
        let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { return nil }
        guard inotify_add_watch(fd, path, UInt32(IN_MODIFY)) >= 0 else {
            _ = close(fd)
            return nil
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler {
            // Drain the events: only that something changed matters.
            var buffer = [UInt8](repeating: 0, count: 4096)
            while buffer.withUnsafeMutableBytes({ read(fd, $0.baseAddress, $0.count) }) > 0 {}
            onChange()
        }
        source.setCancelHandler { _ = close(fd) }
        return source
    }
    #endif
}
