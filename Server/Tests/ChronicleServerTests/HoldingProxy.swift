import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP proxy on 127.0.0.1 in front of a server, for tests that need a
/// push to reach the server *late*: after the client gave up on it, or
/// after a later push.
///
/// It reads each HTTP request whole (headers and a `Content-Length` body)
/// and sends it upstream on a connection of its own, with
/// `Connection: close`; the answer goes back to the client if it is still
/// there, and the client's connection is then closed. While
/// ``holdsPushes`` is on, a `POST` waits, before it goes upstream, until
/// ``releaseNextPush()`` lets it go: held pushes go in the order they
/// arrived, whether or not their client still waits for them.
///
/// `@unchecked Sendable`: every `var` is read and written holding
/// `condition`; the sockets are used by the one thread that owns each.
final class HoldingProxy: @unchecked Sendable {
    let port: Int
    private let upstreamPort: Int
    private let listener: Int32
    private let condition = NSCondition()
    private var holding = false
    /// Pushes that arrived while holding (each took the next ticket).
    private var arrived = 0
    /// Pushes let go (the ones with a ticket below it).
    private var released = 0
    /// Held pushes whose answer came back from upstream.
    private var answered = 0

    /// Listens on a free port and forwards to `127.0.0.1:upstreamPort`.
    init(upstreamPort: Int) throws {
        self.upstreamPort = upstreamPort
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ProxyError("socket") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else { throw ProxyError("bind/listen") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Whether pushes that arrive from now on are held.
    var holdsPushes: Bool {
        get { condition.withLock { holding } }
        set { condition.withLock { holding = newValue } }
    }

    /// Waits until `count` pushes have arrived while holding (at most `timeout`).
    func waitForHeldPushes(_ count: Int, timeout: TimeInterval = 30) throws {
        try wait(timeout, "\(count) held pushes") { arrived >= count }
    }

    /// Lets the oldest held push go upstream, and waits until its answer
    /// came back from the server (at most `timeout`).
    func releaseNextPush(timeout: TimeInterval = 30) throws {
        let target = condition.withLock {
            released += 1
            condition.broadcast()
            return released
        }
        try wait(timeout, "the answer to held push \(target)") { answered >= target }
    }

    /// Stops listening; held pushes stay held.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func wait(_ timeout: TimeInterval, _ what: String, until done: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while !done() {
            guard condition.wait(until: deadline) else { throw ProxyError("timed out waiting for \(what)") }
        }
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            Thread.detachNewThread { [self] in serve(client) }
        }
    }

    /// One request of `client`: read, held if it is a push and pushes are
    /// held, forwarded, answered; then the client is disconnected.
    private func serve(_ client: Int32) {
        defer { close(client) }
        guard var request = Self.readRequest(client) else { return }
        if request.starts(with: Array("POST ".utf8)) {
            let ticket: Int? = condition.withLock {
                guard holding else { return nil }
                defer { arrived += 1; condition.broadcast() }
                return arrived
            }
            if let ticket {
                condition.withLock { while released <= ticket { condition.wait() } }
                let answer = forward(&request)
                _ = Self.writeAll(client, answer)
                condition.withLock { answered += 1; condition.broadcast() }
                return
            }
        }
        _ = Self.writeAll(client, forward(&request))
    }

    /// Sends `request` upstream with `Connection: close` and returns the answer (empty if upstream failed).
    private func forward(_ request: inout [UInt8]) -> [UInt8] {
        let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard upstream >= 0 else { return [] }
        defer { close(upstream) }
        var address = Self.loopback(port: upstreamPort)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0, Self.writeAll(upstream, Self.closingConnection(request)) else { return [] }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(upstream, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return answer }
            answer += buffer[0..<count]
        }
    }

    /// `request` with its `Connection` header replaced by `Connection: close`.
    private static func closingConnection(_ request: [UInt8]) -> [UInt8] {
        let end = headerEnd(request)!
        let head = String(decoding: request[0..<end], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n").filter { !$0.lowercased().hasPrefix("connection:") }
        lines.append("Connection: close")
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8) + request[(end + 4)...]
    }

    /// Where the blank line after the headers starts, if it is in `bytes`.
    private static func headerEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    /// One whole request from `fd`: headers, then as many bytes as `Content-Length` says.
    private static func readRequest(_ fd: Int32) -> [UInt8]? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var needed: Int?
        while true {
            if needed == nil, let end = headerEnd(bytes) {
                let head = String(decoding: bytes[0..<end], as: UTF8.self).lowercased()
                let length = head.components(separatedBy: "\r\n")
                    .first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                needed = end + 4 + length
            }
            if let needed, bytes.count >= needed { return bytes }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return nil }
            bytes += buffer[0..<count]
        }
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return false }
            offset += count
        }
        return true
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}

struct ProxyError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = "proxy: \(description)" }
}
