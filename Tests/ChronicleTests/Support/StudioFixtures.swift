import Foundation
import Testing
@testable import Chronicle

/// Journals for the Studio tests, and reading what a Studio page holds.
enum StudioFixtures {
    /// A store with a known history: people with an embedded address and
    /// friends, a counter bumped several times, a rename, a deletion.
    /// Versions: 1 add Ann, 2 add Bob, 3 move (address), 4 befriend,
    /// 5 count, 6–9 bump (value 2…5), 10 rename, 11 remove Bob.
    static func store(_ name: String = #function) throws -> (Store, URL) {
        let (store, url, ann) = try ReplayFixtures.storeWithAnn(named: name)
        let bob = Person()
        bob.firstName = "Bob"
        bob.lastName = "Ray"
        try store.write(label: "add Bob", metadata: ["by": "tests"]) { store.add(bob) }
        try store.write(label: "move") {
            let address = Address()
            address.city = "Oslo"
            address.country = "NO"
            ann.address = address
        }
        try store.write(label: "befriend") { ann.friends.append(bob) }
        try store.write(label: "count") { store.create(Counter.self, value: ["id": 7, "value": 1]) }
        for value in 2...5 {
            try store.write(label: "bump") { store.object(ofType: Counter.self, forPrimaryKey: 7)!.value = value }
        }
        try store.write(label: "rename") { ann.firstName = "Anna" }
        try store.write(label: "remove Bob") { store.delete(bob) }
        return (store, url)
    }

    /// The fixture's journal file, closed, with a byte of version 4's record
    /// flipped: damaged in the middle, versions 1...3 intact.
    static func damagedJournal(_ name: String = #function) throws -> URL {
        let (store, url) = try store(name)
        try store.close()
        var bytes = try Data(contentsOf: url)
        let marker = try #require(bytes.range(of: Data("befriend".utf8)))
        bytes[marker.lowerBound] ^= 0xFF
        try bytes.write(to: url)
        return url
    }

    /// The JSON data block `id` of a page, parsed.
    static func block(_ id: String, in html: String) throws -> Any {
        let start = try #require(html.range(of: "<script type=\"application/json\" id=\"\(id)\">"), "no block \(id)")
        let end = try #require(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
        return try JSONSerialization.jsonObject(with: Data(html[start.upperBound..<end.lowerBound].utf8), options: [.fragmentsAllowed])
    }
}

extension ReplayFixtures {
    /// A file store on a fixed clock, without a checkpoint file, whose
    /// first commit ("add Ann") adds Ann Lee: the start of the CLI's and
    /// Studio's known journals.
    static func storeWithAnn(named name: String) throws -> (Store, URL, Person) {
        let url = try JournalFixtures.journalURL(name)
        var configuration = Store.Configuration(fileURL: url, durability: .none, clock: ReplayFixtures.clock())
        configuration.checkpoints = .inMemoryOnly
        let store = try Store(configuration: configuration)
        let ann = Person()
        ann.firstName = "Ann"
        ann.lastName = "Lee"
        try store.write(label: "add Ann") { store.add(ann) }
        return (store, url, ann)
    }
}
