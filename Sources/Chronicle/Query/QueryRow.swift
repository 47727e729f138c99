/// Something a ``QueryNode`` can be evaluated against: one object's
/// persisted values, reached by property path.
protocol QueryRow {
    /// The value at `path`, following links and embedded objects; `nil` when
    /// the path is broken (a link or embedded object on the way is `nil`).
    /// Implementations should make this O(path length).
    func value(at path: PropertyPath) -> PersistedValue?
}
