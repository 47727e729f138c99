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

/// Calls a handler soon after a file is written, and at least every
/// `fallback` whatever happens: how a journal follows the commits other
/// processes append without the app polling.
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
/// reserved, not used) per watcher, that is per open shared store.
///
/// Given a way to check that no one else has the file open (`whileAlone`,
/// a store's journal passes its compaction check), the Linux watcher
/// stops watching writes while its process is alone with the file, and
/// watches only for the file being opened (`IN_OPEN`): otherwise every
/// commit of a store that no other process shares would wake the thread
/// (and make the committing `pwrite` send a wake-up to another core) for
/// nothing. An open switches it back to writes, before it looks, and a
/// close (`IN_CLOSE_*`) makes it check again. Why no open is missed: an
/// opener takes the journal's process lock to open, and the check and the
/// switch to opens happen together under that lock (see
/// ``JournalCore/whileFileAlone(_:)``).
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
final class FileChangeWatcher: @unchecked Sendable {
    private let sources: [any DispatchSourceProtocol]
    #if !canImport(Darwin)
    private let thread: NotificationThread?
    #endif

    /// Starts watching `path`; `onChange` runs on `queue` (the fallback,
    /// and notifications on Apple platforms) or on the watcher's thread
    /// (notifications on Linux). `whileAlone` runs its argument only while
    /// no one else has the file open, and returns whether it did; with it,
    /// the Linux watcher watches writes only while someone else may write.
    init(path: String, fallback: Duration, queue: DispatchQueue,
         whileAlone: (@Sendable (_ body: () -> Void) -> Bool)? = nil, onChange: @escaping @Sendable () -> Void) {
        var sources: [any DispatchSourceProtocol] = []
        #if canImport(Darwin)
        if let notification = Self.notificationSource(path: path, queue: queue, onChange: onChange) {
            sources.append(notification)
        }
        #else
        thread = NotificationThread(path: path, whileAlone: whileAlone, onChange: onChange)
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

    /// Whether a notification comes when the file is written: `false` while
    /// the Linux watcher, alone with the file, watches only for opens.
    var watchesWrites: Bool {
        #if canImport(Darwin)
        true
        #else
        thread?.watchesWrites ?? false
        #endif
    }

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
/// matters). With `whileAlone`, it also watches opens and closes, and
/// watches only opens while no one else has the file open. See
/// ``FileChangeWatcher`` for why a thread and for the two modes.
///
/// `@unchecked Sendable`: the descriptors are set in `init` and never
/// change; `stopped` is atomic; the thread closes the inotify descriptor
/// and the pipe's read end when it ends, ``stop()`` the write end.
final class NotificationThread: @unchecked Sendable {
    private let watch: Int32
    private let stopRead: Int32, stopWrite: Int32
    private let stopped = Atomic<Bool>(false)
    private let writesWatched = Flag(true)

    /// What the thread watches for while someone else may write: writes,
    /// and, when it can tell whether it is alone, opens and closes (the
    /// closes are a reason to check).
    private static func writesMask(checksAlone: Bool) -> UInt32 {
        UInt32(checksAlone ? IN_MODIFY | IN_OPEN | IN_CLOSE_WRITE | IN_CLOSE_NOWRITE : IN_MODIFY)
    }

    /// Whether the thread watches writes now (``FileChangeWatcher/watchesWrites``).
    var watchesWrites: Bool { writesWatched.value }

    /// Starts the thread; `nil` if the watch or the pipe cannot be set up
    /// (the fallback timer still looks).
    init?(path: String, whileAlone: (@Sendable (_ body: () -> Void) -> Bool)?, onChange: @escaping @Sendable () -> Void) {
        let watch = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard watch >= 0 else { return nil }
        var ends: [Int32] = [0, 0]
        guard inotify_add_watch(watch, path, Self.writesMask(checksAlone: whileAlone != nil)) >= 0, pipe(&ends) == 0 else {
            _ = closeDescriptor(watch)
            return nil
        }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        self.watch = watch
        (stopRead, stopWrite) = (ends[0], ends[1])
        let thread = Thread { [watch, stopRead, writesWatched] in
            // The lowest priority: an idle core still runs it at once, but a
            // thread of the app's that wakes with it — an observer of this
            // process's own commit, which also wakes this thread — runs first.
            #if canImport(Glibc)
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19) // 0: this thread, on Linux
            #endif
            Self.run(watch: watch, path: path, stop: stopRead, whileAlone: whileAlone, writesWatched: writesWatched,
                     onChange: onChange)
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
    /// the events and calling `onChange` after each batch; with
    /// `whileAlone`, switching between watching writes and watching opens
    /// as others come and go.
    private static func run(watch: Int32, path: String, stop: Int32,
                            whileAlone: (@Sendable (_ body: () -> Void) -> Bool)?,
                            writesWatched: Flag, onChange: @Sendable () -> Void) {
        var descriptors = [pollfd(fd: watch, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: stop, events: Int16(POLLIN), revents: 0)]
        var buffer = [UInt8](repeating: 0, count: 4096)
        /// Watches only opens if no one else has the file open.
        func watchOpensIfAlone() {
            guard let whileAlone else { return }
            _ = whileAlone {
                // Under the process lock: no one opens the file meanwhile.
                guard inotify_add_watch(watch, path, UInt32(IN_OPEN)) >= 0 else { return }
                writesWatched.value = false
            }
        }
        watchOpensIfAlone()
        while true {
            let ready = poll(&descriptors, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if descriptors[1].revents != 0 { return }
            guard descriptors[0].revents != 0 else { continue }
            var events: UInt32 = 0
            while true {
                let count = buffer.withUnsafeMutableBytes { read(watch, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                events |= Self.eventMasks(buffer, count: count)
            }
            if !writesWatched.value {
                guard events & UInt32(IN_OPEN) != 0 else { continue }
                // Watch writes again before looking, so that a commit
                // written after the look still sends a notification.
                if inotify_add_watch(watch, path, writesMask(checksAlone: true)) >= 0 {
                    writesWatched.value = true
                }
                onChange()
                continue
            }
            onChange()
            // Someone's commits precede their close in the queue: this
            // batch's look has folded them.
            if events & UInt32(IN_CLOSE_WRITE | IN_CLOSE_NOWRITE) != 0 { watchOpensIfAlone() }
        }
    }

    /// A flag the thread sets and any thread reads.
    final class Flag: Sendable {
        private let atomic: Atomic<Bool>
        init(_ value: Bool) { atomic = Atomic(value) }
        var value: Bool {
            get { atomic.load(ordering: .acquiring) }
            set { atomic.store(newValue, ordering: .releasing) }
        }
    }

    /// The union of the masks of the `inotify_event`s in `buffer[..<count]`.
    private static func eventMasks(_ buffer: [UInt8], count: Int) -> UInt32 {
        var masks: UInt32 = 0
        var offset = 0
        buffer.withUnsafeBytes { bytes in
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= count {
                let event = bytes.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                masks |= event.mask
                offset += header + Int(event.len)
            }
        }
        return masks
    }
}
#endif
