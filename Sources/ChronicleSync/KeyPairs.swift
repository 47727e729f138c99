import Chronicle

/// The objects whose key in the scope differs from their key in this
/// journal, per type name, both ways.
///
/// An object's local key is its scope key unless a pair says otherwise.
/// Pairs arise when two devices created objects at one key concurrently
/// (the one the server ordered later gets another key in the scope, but
/// keeps its local key), and when two creates of one primary key merged.
struct KeyPairs: Sendable, Equatable {
    private(set) var scopeToLocal: [String: [Int64: Int64]] = [:]
    private(set) var localToScope: [String: [Int64: Int64]] = [:]

    init(_ pairs: [SyncProgress.KeyPair] = []) {
        for pair in pairs { self.pair(type: pair.type, scope: pair.scope, local: pair.local) }
    }

    var list: [SyncProgress.KeyPair] {
        scopeToLocal.flatMap { type, map in map.map { SyncProgress.KeyPair(type: type, scope: $0.key, local: $0.value) } }
            .sorted { ($0.type, $0.scope) < ($1.type, $1.scope) }
    }

    func pairedLocal(_ type: String, scope: Int64) -> Int64? { scopeToLocal[type]?[scope] }
    func pairedScope(_ type: String, local: Int64) -> Int64? { localToScope[type]?[local] }

    /// The scope key of local object `local` (absent a pair, the same number).
    func scopeKey(_ type: String, local: Int64) -> Int64 { localToScope[type]?[local] ?? local }

    /// Records that scope key `scope` and local key `local` name one object.
    mutating func pair(type: String, scope: Int64, local: Int64) {
        unpair(type: type, local: local)
        if let oldLocal = scopeToLocal[type]?[scope] { localToScope[type]?[oldLocal] = nil }
        scopeToLocal[type, default: [:]][scope] = local
        localToScope[type, default: [:]][local] = scope
    }

    /// Records that scope key `scope` and local key `local` name one
    /// object, dropping whatever pair either key was in; no pair when they
    /// are the same number.
    mutating func match(type: String, scope: Int64, local: Int64) {
        guard scope == local else { return pair(type: type, scope: scope, local: local) }
        unpair(type: type, local: local)
        if let other = scopeToLocal[type]?[scope] { unpair(type: type, local: other) }
    }

    mutating func unpair(type: String, local: Int64) {
        if let scope = localToScope[type]?[local] {
            scopeToLocal[type]?[scope] = nil
            localToScope[type]?[local] = nil
        }
    }

    /// The largest key any pair of `type` uses, either side.
    func largestKey(_ type: String) -> Int64 {
        max(scopeToLocal[type]?.keys.max() ?? 0, localToScope[type]?.keys.max() ?? 0)
    }
}
