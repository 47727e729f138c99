@testable import Chronicle

/// A key whose hash the test chooses, to force shared digits, deep shared
/// prefixes and whole-hash collisions in the hash tries: the trie files it
/// by `hash` itself.
struct ChosenHashKey: TrieHashable {
    var id: Int
    var hash: Int
    static func == (lhs: Self, rhs: Self) -> Bool { lhs.id == rhs.id }
    func hash(into hasher: inout Hasher) { hasher.combine(hash) }
    var trieHash: UInt64 { UInt64(bitPattern: Int64(hash)) }
}
