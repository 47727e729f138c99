import Foundation

extension Results {
    /// The values of `keyPath` over the results: read from the stored
    /// values when the key path is a persisted property, computed per
    /// object otherwise.
    private func values<V>(of keyPath: KeyPath<Element, V>, _ convert: (PersistedValue) -> V?) -> [V] {
        if let recorded = try? KeyPathMapping.record(keyPath), recorded.isDirect {
            let (keys, table, state, _) = evaluated()
            guard let table else { return [] }
            let path = PropertyPath(recorded.path)
            return keys.compactMap { StateRow(state: state, table: table.index, key: $0).value(at: path).flatMap(convert) }
        }
        return map { $0[keyPath: keyPath] }
    }

    /// The smallest value of a property over the results, or `nil` when empty.
    ///
    /// - Complexity: O(*n*) in the number of results.
    public func min<V: _PrimitivePersistable & Comparable>(of keyPath: KeyPath<Element, V>) -> V? {
        values(of: keyPath) { V(_primitive: $0) }.min()
    }

    /// The largest value of a property over the results, or `nil` when empty.
    ///
    /// - Complexity: O(*n*) in the number of results.
    public func max<V: _PrimitivePersistable & Comparable>(of keyPath: KeyPath<Element, V>) -> V? {
        values(of: keyPath) { V(_primitive: $0) }.max()
    }

    /// The sum of a numeric property over the results (zero when empty).
    ///
    /// - Complexity: O(*n*) in the number of results.
    public func sum<V: _PrimitivePersistable & AdditiveArithmetic>(of keyPath: KeyPath<Element, V>) -> V {
        values(of: keyPath) { V(_primitive: $0) }.reduce(.zero, +)
    }

    /// The average of a numeric property over the results, or `nil` when empty.
    ///
    /// - Complexity: O(*n*) in the number of results.
    public func average<V: _PrimitivePersistable & BinaryInteger>(of keyPath: KeyPath<Element, V>) -> Double? {
        let all = values(of: keyPath) { V(_primitive: $0) }
        return all.isEmpty ? nil : Double(all.reduce(0) { $0 + Double($1) }) / Double(all.count)
    }

    /// The average of a floating-point property over the results, or `nil` when empty.
    ///
    /// - Complexity: O(*n*) in the number of results.
    public func average<V: _PrimitivePersistable & BinaryFloatingPoint>(of keyPath: KeyPath<Element, V>) -> Double? {
        let all = values(of: keyPath) { V(_primitive: $0) }
        return all.isEmpty ? nil : all.reduce(0) { $0 + Double($1) } / Double(all.count)
    }

    /// The results with only the first object of each distinct combination
    /// of values of `keyPaths`, in the current order.
    ///
    /// - Precondition: every key path reads a persisted property.
    public func distinct(by keyPaths: [PartialKeyPath<Element>]) -> Results<Element> {
        var query = query
        for keyPath in keyPaths {
            do {
                query.distinct.append(PropertyPath(try KeyPathMapping.record(keyPath).path))
            } catch {
                preconditionFailure("Chronicle: cannot take distinct \(Element.self) by this key path: \(error)")
            }
        }
        return Results(store: store, frozen: frozen, query: query)
    }
}
