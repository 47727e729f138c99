import Foundation
import Testing
@testable import Chronicle

/// Studio pages loaded in a real headless browser (Debian's `chromium`),
/// checked on what a person would see: the timeline, the state at a version
/// (equal to `frozen(at:)`), a diff, an object's history, hostile journals.
///
/// Without `chromium` these tests fail, saying how to install it; set
/// `CHRONICLE_SKIP_BROWSER_TESTS=1` to skip them instead.
@Suite("Studio in a browser", .serialized,
       .enabled(if: ProcessInfo.processInfo.environment["CHRONICLE_SKIP_BROWSER_TESTS"] != "1",
                "CHRONICLE_SKIP_BROWSER_TESTS=1 skips the browser tests"))
struct StudioBrowserTests {
    // MARK: The browser

    static func chromium() -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent("chromium")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    /// The DOM of `page` opened at `#fragment`, after its script ran.
    static func dom(_ page: URL, _ fragment: String = "") throws -> String {
        let binary = try #require(chromium(), """
            chromium is not on the PATH, so the Studio page cannot be checked in a browser. \
            Install it (Debian: apt-get install -y chromium), or set CHRONICLE_SKIP_BROWSER_TESTS=1 to skip these tests.
            """)
        let profile = try JournalFixtures.temporaryDirectory("chromium-profile")
        defer { try? FileManager.default.removeItem(at: profile) }
        let process = Process()
        process.executableURL = binary
        process.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000",
                             "--user-data-dir=\(profile.path)", "--dump-dom", page.absoluteString + (fragment.isEmpty ? "" : "#" + fragment)]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let killer = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 120, execute: killer)
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        killer.cancel()
        #expect(process.terminationStatus == 0, "chromium exited with \(process.terminationStatus)")
        let dom = String(decoding: data, as: UTF8.self)
        #expect(dom.contains("data-ready=\"true\""), "the page's script ran to its end")
        return dom
    }

    static func page(_ store: Store, _ name: String = #function) throws -> URL {
        let url = try JournalFixtures.temporaryDirectory(name).appendingPathComponent("studio.html")
        try store.writeStudioPage(to: url)
        return url
    }

    // MARK: Reading the DOM

    /// The text of the element starting at the first match of `opening` (up to its `closing` tag), tags removed.
    static func text(after opening: String, upTo closing: String, in dom: String) -> String? {
        guard let start = dom.range(of: opening), let end = dom.range(of: closing, range: start.upperBound..<dom.endIndex) else { return nil }
        return plain(String(dom[start.upperBound..<end.lowerBound]))
    }

    /// Markup as the text a person reads: tags removed, entities decoded.
    static func plain(_ markup: String) -> String {
        var text = markup.replacingOccurrences(of: "<[^>]*>", with: "", options: .regularExpression)
        for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&nbsp;", "\u{A0}"), ("&amp;", "&")] {
            text = text.replacingOccurrences(of: entity, with: character)
        }
        return text
    }

    /// The rows of the state tables: object id → property → cell text.
    static func stateRows(_ dom: String) throws -> [String: [String: String]] {
        let state = try #require(dom.range(of: "<div id=\"state\">"))
        let end = try #require(dom.range(of: "<div id=\"commit-panel\"", range: state.upperBound..<dom.endIndex) ?? dom.range(of: "id=\"commit-panel\"", range: state.upperBound..<dom.endIndex))
        let markup = String(dom[state.upperBound..<end.lowerBound])
        var rows: [String: [String: String]] = [:]
        let row = try Regex(#"<tr data-object="([^"]*)"[^>]*>(.*?)</tr>"#)
        let cell = try Regex(#"<td data-property="([^"]*)">(.*?)</td>"#)
        for match in markup.matches(of: row) {
            let id = String(match.output[1].substring!), body = String(match.output[2].substring!)
            var cells: [String: String] = [:]
            for c in body.matches(of: cell) { cells[plain(String(c.output[1].substring!))] = plain(String(c.output[2].substring!)) }
            rows[plain(id)] = cells
        }
        return rows
    }

    /// A value as the page's tables show it (for the fixture's types).
    static func shown(_ value: PersistedValue, _ property: PropertySchema, _ state: StoreState) -> String {
        switch value {
        case .null: return "nil"
        case .string(let text): return text
        case .int(let number): return "\(number)"
        case .bool(let flag): return "\(flag)"
        case .list(let elements):
            var element = property
            element.collection = .none
            return "[" + elements.map { shown($0, element, state) }.joined(separator: ", ") + "]"
        case .link(let key):
            let type = property.objectType ?? ""
            if let table = state.tableIndex(named: type), state.schema[table].isEmbedded, let record = state.object(table: table, key: key) {
                return "{" + zip(state.schema[table].properties, record.values).map { "\($0.name): \(shown($1, $0, state))" }.joined(separator: ", ") + "}"
            }
            return "\(type)#\(key.rawValue)"
        default: return "\(value)"
        }
    }

    // MARK: Tests

    @Test func timelineAndStateMatchFrozen() throws {
        let (store, _) = try StudioFixtures.store()
        let page = try Self.page(store)
        for version: UInt64 in [0, 3, 4, 11] {
            let dom = try Self.dom(page, "v=\(version)")
            #expect(Self.text(after: "id=\"commit-count\">", upTo: "</span>", in: dom) == "11 commits")
            #expect(Self.text(after: "id=\"version\">", upTo: "</span>", in: dom) == "\(version)")
            #expect(dom.contains("<li data-version=\"\(version)\" class=\"current\">"), "the timeline marks version \(version)")
            let state = try store.frozen(at: version).state
            let rows = try Self.stateRows(dom)
            var expected = 0
            for (table, type) in state.schema.enumerated() {
                for (key, record) in state.objects(table: table) {
                    expected += 1
                    let cells = rows["\(type.name)/\(key.rawValue)"]
                    #expect(cells != nil, "version \(version): \(type.name)#\(key.rawValue) is shown")
                    for (property, value) in zip(type.properties, record.values) {
                        #expect(cells?[property.name] == Self.shown(value, property, state),
                                "version \(version): \(type.name)#\(key.rawValue).\(property.name)")
                    }
                }
            }
            #expect(rows.count == expected, "version \(version): exactly the objects of frozen(at:)")
        }
    }

    @Test func commitDetailsAtAVersion() throws {
        let (store, _) = try StudioFixtures.store()
        let dom = try Self.dom(try Self.page(store), "v=2")
        #expect(Self.text(after: "id=\"commit-label\">", upTo: "</dd>", in: dom) == "add Bob")
        #expect(dom.contains("<dt>by</dt><dd class=\"mono\">tests</dd>"), "metadata is listed")
        #expect(Self.text(after: "<li class=\"inserted\" data-object=\"Person/2\">", upTo: "</li>", in: dom)?.hasPrefix("+ Person#2 {firstName: \"Bob\"") == true)
    }

    @Test func diffBetweenTwoVersions() throws {
        let (store, _) = try StudioFixtures.store()
        let dom = try Self.dom(try Self.page(store), "v=11&diff=2..11")
        let diff = try store.diff(from: 2, to: 11)
        #expect(Self.text(after: "id=\"diff-summary\">", upTo: "</p>", in: dom)
                == "diff 2 → 11: \(diff.inserted.count) inserted, \(diff.deleted.count) deleted, \(diff.modified.count) changed")
        let list = try #require(dom.range(of: "data-from=\"2\" data-to=\"11\""))
        let diffMarkup = String(dom[list.upperBound...])
        for object in diff.inserted { #expect(diffMarkup.contains("<li class=\"inserted\" data-object=\"\(object.typeName)/\(object.key.rawValue)\"")) }
        for object in diff.deleted { #expect(diffMarkup.contains("<li class=\"deleted\" data-object=\"\(object.typeName)/\(object.key.rawValue)\"")) }
        for object in diff.modified {
            let text = Self.text(after: "<li class=\"changed\" data-object=\"\(object.typeName)/\(object.key.rawValue)\">", upTo: "</li>", in: diffMarkup)
            for change in object.changes where change.name == "firstName" {
                #expect(text?.contains("firstName: \(change.oldValue)→\(change.newValue)") == true, "\(text ?? "no entry")")
            }
        }
    }

    @Test func objectHistoryAndChart() throws {
        let (store, _) = try StudioFixtures.store()
        let counter = try #require(store.object(ofType: Counter.self, forPrimaryKey: 7))
        let history = try store.history(of: counter)
        let dom = try Self.dom(try Self.page(store), "v=11&object=Counter/1")
        #expect(dom.contains("id=\"object-panel\" data-object=\"Counter/1\""))
        #expect(Self.text(after: "id=\"object-name\" class=\"sub\">", upTo: "</span>", in: dom) == "Counter#1 (id 7)")
        let start = try #require(dom.range(of: "id=\"history\""))
        let markup = String(dom[start.lowerBound...])
        #expect(markup.components(separatedBy: "<li class=").count - 1 == history.count, "one entry per commit that touched it")
        for entry in history {
            let text = Self.text(after: "data-version=\"\(entry.version)\">", upTo: "</li>", in: markup)
            switch entry.change {
            case .created: #expect(text?.contains("created {id: 7, value: 1}") == true, "\(text ?? "none")")
            case .modified(let changes):
                for change in changes { #expect(text?.contains("\(change.name): \(change.oldValue)→\(change.newValue)") == true, "\(text ?? "none")") }
            case .deleted: #expect(text?.contains("deleted") == true)
            }
        }
        #expect(dom.contains("<svg viewBox=\"0 0 460 150\" data-property=\"value\">"), "the numeric property is charted")
        #expect(dom.components(separatedBy: "<circle").count - 1 == 5, "one point per value 1…5")
    }

    @Test func primaryKeyLinksAndFiltersFromTheFragment() throws {
        let (store, _) = try StudioFixtures.store()
        let dom = try Self.dom(try Self.page(store), "v=11&label=bump")
        #expect(Self.text(after: "id=\"f-status\" class=\"hint\">", upTo: "</div>", in: dom) == "4 commits found")
        for version in 6...9 { #expect(dom.contains("<li class=\"changed\" data-version=\"\(version)\">")) }
        let typed = try Self.dom(try Self.page(store), "v=11&type=Counter&prop=Counter.value")
        #expect(Self.text(after: "id=\"f-status\" class=\"hint\">", upTo: "</div>", in: typed) == "4 commits found")
        // Links are anchors that select their target; embedded objects are expanded in place.
        let linked = try Self.dom(try Self.page(store), "v=4")
        #expect(linked.contains("data-target=\"Person/2\""), "Ann's friend is a link to Bob")
        #expect(try Self.stateRows(linked)["Person/1"]?["address"] == "{city: Oslo, country: NO}")
    }

    @Test func hostileJournalRendersAsText() throws {
        let payloads = [
            "<img src=x onerror=\"document.title='pwned-img'\">",
            "</script><script>document.title='pwned-script'</script>",
            "<b>bold</b> & <!-- comment -->",
        ]
        let journal = Journal.inMemory(durability: .none)
        let type = TypeSchema(name: payloads[2], properties: [
            PropertySchema(name: "key", type: .int, isPrimaryKey: true),
            PropertySchema(name: payloads[0], type: .string),
            PropertySchema(name: "huge", type: .string),
        ])
        let huge = String(repeating: "<script>alert(1)</script>", count: 40_000)
        try journal.append(Commit(version: 1, timestamp: Date(timeIntervalSince1970: 0), label: payloads[0], metadata: [payloads[1]: payloads[2]],
                                  events: [.defineType(type), .create(table: 0, key: ObjectKey(1), values: [.int(1), .string(payloads[1]), .string(huge)])]))
        try journal.append(Commit(version: 2, timestamp: Date(timeIntervalSince1970: 1), label: payloads[1],
                                  events: [.set(table: 0, key: ObjectKey(1), property: 1, value: .string(payloads[0]))]))
        let page = try JournalFixtures.temporaryDirectory().appendingPathComponent("hostile.html")
        try journal.writeStudioPage(to: page)
        for fragment in ["v=1", "v=2&diff=1..2&object=" + (payloads[2].addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "") + "/1"] {
            let dom = try Self.dom(page, fragment)
            #expect(dom.contains("<title>Chronicle Studio — in-memory journal</title>"), "no payload changed the title")
            #expect(!dom.contains("<img"))
            #expect(!dom.contains("<b>bold</b>"))
            #expect(dom.contains("&lt;img src=x onerror=\"document.title='pwned-img'\"&gt;"), "the payload is shown as text")
            #expect(dom.contains("&lt;b&gt;bold&lt;/b&gt; &amp; &lt;!-- comment --&gt;"), "the type name is shown as text")
            let scripts = dom.components(separatedBy: "<script").count - 1
            #expect(scripts == 6, "only the page's own scripts: summaries, changes, two snapshots, meta, program")
        }
        let dom = try Self.dom(page, "v=1")
        let cell = try #require(try Self.stateRows(dom).values.first?["huge"])
        #expect(cell.hasSuffix("… (\(huge.utf16.count) characters)"), "a huge string is shown cut, with its length")
    }

    @Test func compactedJournalStartsAtItsBase() throws {
        let (store, _) = try StudioFixtures.store()
        try store.compact(keepingLast: 3)
        let journal = store.journalForReading
        #expect(journal.baseVersion == 7, "version 8 is the snapshot, 9…11 the commits kept")
        let page = try Self.page(store)
        let dom = try Self.dom(page, "v=10")
        #expect(Self.text(after: "id=\"commit-count\">", upTo: "</span>", in: dom) == "4 commits (versions 8…11)")
        let state = try store.frozen(at: 10).state
        let rows = try Self.stateRows(dom)
        for (table, type) in state.schema.enumerated() {
            for (key, record) in state.objects(table: table) {
                for (property, value) in zip(type.properties, record.values) {
                    #expect(rows["\(type.name)/\(key.rawValue)"]?[property.name] == Self.shown(value, property, state))
                }
            }
        }
        let before = try Self.dom(page, "v=7")
        #expect(before.contains("History starts after version 7 (the journal was compacted)."))
    }

    @Test func damagedJournalIsReportedInTheBrowser() throws {
        let url = try StudioFixtures.damagedJournal()
        let page = url.deletingLastPathComponent().appendingPathComponent("damaged.html")
        try Journal.writeStudioPage(ofJournalAt: url, to: page)
        let dom = try Self.dom(page)
        #expect(dom.contains("<div id=\"problems\" role=\"alert\">"), "the problems banner is shown")
        let problem = try #require(Self.text(after: "<ul id=\"problem-list\"><li>", upTo: "</li>", in: dom))
        #expect(problem.contains("damaged at byte"))
        #expect(problem.contains("versions up to 3"))
        #expect(Self.text(after: "id=\"commit-count\">", upTo: "</span>", in: dom) == "3 commits")
    }
}
