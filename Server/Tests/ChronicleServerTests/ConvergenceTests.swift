import Chronicle
@_spi(SyncServer) import ChronicleSync
import Foundation
import ServerProcesses
import Testing

/// Three devices, two servers, hundreds of random conflicting commits
/// while connections are cut, a server is killed and restarted (and, with
/// `CHRONICLE_SYNC_RESTART_POSTGRES=1`, which `scripts/sync-tests` sets,
/// PostgreSQL restarts): at the end
/// every device's state is the fold of the server's order, and no commit is
/// lost or applied twice.
@Suite("Sync convergence", .serialized)
struct ConvergenceTests {

    static let logNote = 100

    /// One random commit on `device`: one to three edits of shared notes,
    /// and a unique token appended to the log note. With `links`, the
    /// edits include setting a note's embedded place, inserting and
    /// removing its embedded stops, linking it to another note and to a
    /// new badge, adding and removing badges in its set of them, setting
    /// and removing embedded rooms in its map of them, and moving and
    /// replacing elements of its tags.
    static func randomCommit(on device: Device, token: String, links: Bool, random: inout SeededRandom) throws {
        let store = device.store
        var choices: [Int] = []
        for _ in 0..<Int.random(in: 1...3, using: &random) { choices.append(Int.random(in: 0..<(links ? 21 : 10), using: &random)) }
        let id = Int.random(in: 1...5, using: &random)
        let word = ["red", "green", "blue", "cyan"][Int.random(in: 0..<4, using: &random)]
        let position = Int.random(in: 0..<8, using: &random)
        try store.write(label: token) {
            for choice in choices {
                guard let note = device.note(id) else {
                    let note = Note()
                    note.id = id
                    note.title = "recreated \(token)"
                    store.add(note)
                    continue
                }
                switch choice {
                case 0, 1: note.title = "\(token) \(word)"
                case 2: note.count += 1
                case 3: note.tags.insert(token, at: min(position, note.tags.count))
                case 4: if !note.tags.isEmpty { note.tags.remove(at: position % note.tags.count) }
                case 5: note.labels.insert(word)
                case 6: note.labels.remove(word)
                case 7: note.scores[word] = position
                case 8: note.scores.removeObject(for: word)
                // Embedded objects: created without a primary key, at keys two devices may both use.
                case 10: note.place = Place(city: "\(word) \(token)", floor: position)
                case 11: note.stops.insert(Place(city: token, floor: position), at: min(position, note.stops.count))
                case 12: if !note.stops.isEmpty { note.stops.remove(at: position % note.stops.count) }
                // Links: to another note (nil once it is deleted), and to a new badge.
                case 13: note.next = device.note(1 + position % 5)
                case 14: note.badge = Badge(label: "\(word) \(token)")
                // Lists edited in place: a move and a replacement.
                case 15: if note.tags.count > 1 { note.tags.move(from: position % note.tags.count, to: 0) }
                case 16: if !note.tags.isEmpty { note.tags[position % note.tags.count] = token }
                // A set of links: a new badge in, or one out.
                case 17: note.badges.insert(Badge(label: token))
                case 18: if let badge = note.badges.first { note.badges.remove(badge) }
                // A map of embedded objects: one set, one removed.
                case 19: note.rooms[word] = Place(city: token, floor: position)
                case 20: note.rooms.removeObject(for: word)
                default: store.delete(note)
                }
            }
            device.note(logNote)!.tags.append(token)
        }
    }

    @Test(arguments: [UInt64(0x5EED_2029), 7, 1_234_567])
    func devicesConvergeToTheServerOrderThroughFailures(seed: UInt64) async throws {
        try await Self.converge(seed: seed, links: false)
    }

    /// As above, with links too: embedded objects (a note's place, stops
    /// and rooms), whose keys two devices' creates often share (they have no
    /// primary key to merge on), links to other notes (nil once the note is
    /// deleted) and to new objects without a primary key, alone and in a
    /// set; and list moves and replacements. It found that a create could
    /// take a key the scope had used for an object deleted since: a device
    /// still holding its copy of the deleted object took the new one for
    /// it, and dropped the links to it (a note's `place` nil where the
    /// server's fold has one).
    @Test(arguments: [UInt64(15), 11, 13])
    func devicesConvergeWithLinksAndEmbeddedObjects(seed: UInt64) async throws {
        try await Self.converge(seed: seed, links: true)
    }

    static func converge(seed: UInt64, links: Bool) async throws {
        var random = SeededRandom(state: seed)
        let servers = [try await ServerProcess(), try await ServerProcess()]
        var ports = servers.map(\.port)
        var running = servers
        defer { for server in running { server.stop() } }
        func url(_ index: Int) -> URL { URL(string: "http://127.0.0.1:\(ports[index])")! }
        let scope = Harness.freshScope("converge")
        let devices = try (0..<3).map { try Device(server: url($0 % 2), scope: scope, name: "d\($0)") }
        for device in devices { device.session.start() }
        defer { for device in devices { device.session.stop() } }

        try devices[0].store.write {
            for id in [1, 2, 3, 4, 5, Self.logNote] { devices[0].store.create(Note.self, value: ["id": id, "title": "seed \(id)"]) }
        }
        for device in devices { try await device.sync() }

        var tokens: [String] = []
        let restartPostgres = ProcessInfo.processInfo.environment["CHRONICLE_SYNC_RESTART_POSTGRES"] == "1"
        for round in 0..<6 {
            // Disruptions: a device goes offline for the round, another moves server,
            // server 1 is killed and restarted mid-round, PostgreSQL restarts once.
            let offline = Int.random(in: 0..<3, using: &random)
            devices[offline].session.stop()
            let mover = (offline + 1) % 3
            devices[mover].reconnect(to: url(Int.random(in: 0..<2, using: &random)))
            for step in 0..<100 {
                let index = Int.random(in: 0..<3, using: &random)
                let token = "r\(round)-d\(index)-\(step)"
                try Self.randomCommit(on: devices[index], token: token, links: links, random: &random)
                tokens.append(token)
                if step == 20 && round % 2 == 1 {
                    running[1].kill()
                    try await Task.sleep(for: .milliseconds(200))
                    running[1] = try await ServerProcess(port: ports[1])
                    ports[1] = running[1].port
                }
                if step == 30 && round == 3 && restartPostgres {
                    // system(3), not Foundation's Process: its waitUntilExit
                    // never saw this shell exit (left a zombie) while the
                    // test's server processes were running, and hung.
                    let status = system("pg_ctlcluster $(ls /usr/lib/postgresql | sort -n | tail -1) main restart")
                    #expect(status == 0)
                }
                if step % 10 == 0 { try await Task.sleep(for: .milliseconds(Int.random(in: 0..<30, using: &random))) }
            }
            devices[offline].session.start()
        }

        // Everyone online and quiet: sync until no device changes.
        for _ in 0..<3 {
            for device in devices { try await device.sync(timeout: .seconds(120)) }
        }
        let api = API(base: url(0), token: Harness.writer)
        let commits = try await Dump.serverCommits(api, scope: scope)
        let truth = try Dump.of(Dump.fold(commits))
        for device in devices {
            let dump = try device.dump()
            #expect(dump == truth, "\(device.url.lastPathComponent) differs: \(Dump.difference(dump, truth))")
        }

        // Zero lost, zero duplicated: the log note holds every token once.
        let log = try #require(devices[0].note(Self.logNote))
        #expect(log.tags.count == tokens.count)
        #expect(Set(log.tags) == Set(tokens))
        // Every random commit reached the server once (plus the schema and seed commits).
        let labelled = commits.compactMap(\.label).filter { $0.hasPrefix("r") }
        #expect(labelled.count == tokens.count)
        #expect(Set(labelled) == Set(tokens))
    }
}
