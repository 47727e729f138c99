#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Foundation
import Synchronization

/// What follows the commits other processes append, for a store: an
/// ``AppendFollower`` on Linux, a ``FileChangeWatcher`` elsewhere.
protocol CommitFollower: AnyObject, Sendable {
    /// Stops following. A handler call already under way may still finish.
    func cancel()
}

/// Calls a handler soon after a file is written, and at least every
/// `fallback` whatever happens: how a journal follows the commits other
/// processes append without the app polling (``Journal/waitForCommits(after:timeout:)``,
/// and a store on Apple platforms; on Linux a store follows through its
/// journal's shared area instead, see ``AppendFollower``).
///
/// The notification is inotify (`IN_MODIFY`) on Linux, read by a thread of
/// the watcher's own that calls the handler itself, and a dispatch
/// file-system object source (`.write`, `.extend`) on Apple platforms,
/// delivered on `queue`; the fallback timer runs on `queue`. So handler
/// calls may overlap: a handler must be safe to run on two threads at once.
///
/// Why a thread on Linux: libdispatch watches a read source's descriptor
/// from its manager thread, which then queues the handler for a worker
/// thread — two threads to wake before the handler runs, and on a busy
/// machine each wake-up may wait for a time slice, which is what the tail
/// of a cross-process wake-up was made of. A thread blocked reading the
/// inotify descriptor is one wake-up. It costs one thread (mostly stack
/// reserved, not used) per watcher.
///
/// The fallback timer covers what notifications miss:
/// file systems that send none (network file systems, which the journal
/// does not support anyway), a notification system out of resources, or a
/// watch that could not be set up. A handler call says "look", not "there is
/// something": the caller catches up, which costs O(1) when nothing is new.
///
/// `@unchecked Sendable`: the sources and the thread's stopper are only
/// created in `init` and only cancelled after; dispatch sources may be
/// cancelled from any thread, and the stopper is a ``NotificationThread``.
final class FileChangeWatcher: CommitFollower, @unchecked Sendable {
    private let sources: [any DispatchSourceProtocol]
    #if !canImport(Darwin)
    private let thread: NotificationThread?
    #endif

    /// Starts watching `path`; `onChange` runs on `queue` (the fallback,
    /// and notifications on Apple platforms) or on the watcher's thread
    /// (notifications on Linux).
    init(path: String, fallback: Duration, queue: DispatchQueue, onChange: @escaping @Sendable () -> Void) {
        var sources: [any DispatchSourceProtocol] = []
        #if canImport(Darwin)
        if let notification = Self.notificationSource(path: path, queue: queue, onChange: onChange) {
            sources.append(notification)
        }
        #else
        thread = NotificationThread(path: path, onChange: onChange)
        #endif
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
        #if !canImport(Darwin)
        thread?.stop()
        #endif
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
    #endif
}


#if !canImport(Darwin)
/// Linux: a thread that blocks in `poll(2)` on an inotify descriptor
/// watching a file for `IN_MODIFY`, and on a pipe that stops it, and calls
/// a handler once for each batch of events (only that something changed
/// matters). See ``FileChangeWatcher`` for why a thread.
///
/// `@unchecked Sendable`: the descriptors are set in `init` and never
/// change; `stopped` is atomic; the thread closes the inotify descriptor
/// and the pipe's read end when it ends, ``stop()`` the write end.
final class NotificationThread: @unchecked Sendable {
    private let watch: Int32
    private let stopRead: Int32, stopWrite: Int32
    private let stopped = Atomic<Bool>(false)

    /// Starts the thread; `nil` if the watch or the pipe cannot be set up
    /// (the fallback timer still looks).
    init?(path: String, onChange: @escaping @Sendable () -> Void) {
        let watch = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard watch >= 0 else { return nil }
        var ends: [Int32] = [0, 0]
        guard inotify_add_watch(watch, path, UInt32(IN_MODIFY)) >= 0, pipe(&ends) == 0 else {
            _ = closeDescriptor(watch)
            return nil
        }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        self.watch = watch
        (stopRead, stopWrite) = (ends[0], ends[1])
        let thread = Thread { [watch, stopRead] in
            // The lowest priority: an idle core still runs it at once, but a
            // thread of the app's that wakes with it runs first.
            #if canImport(Glibc)
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19) // 0: this thread, on Linux
            #endif
            Self.run(watch: watch, stop: stopRead, onChange: onChange)
            _ = closeDescriptor(watch)
            _ = closeDescriptor(stopRead)
        }
        thread.name = "Chronicle file watcher"
        thread.stackSize = 256 * 1024
        thread.start()
    }

    deinit { stop() }

    /// Ends the thread (a handler call under way finishes first). Once only.
    func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        _ = closeDescriptor(stopWrite)
    }

    /// Waits for events or the stop (the pipe's write end closed), draining
    /// the events and calling `onChange` after each batch.
    private static func run(watch: Int32, stop: Int32, onChange: @Sendable () -> Void) {
        var descriptors = [pollfd(fd: watch, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: stop, events: Int16(POLLIN), revents: 0)]
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let ready = poll(&descriptors, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if descriptors[1].revents != 0 { return }
            guard descriptors[0].revents != 0 else { continue }
            while buffer.withUnsafeMutableBytes({ read(watch, $0.baseAddress, $0.count) }) > 0 {}
            onChange()
        }
    }
}
#endif
