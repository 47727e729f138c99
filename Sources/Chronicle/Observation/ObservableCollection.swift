/// The observation methods every Chronicle collection shares: ``Results``,
/// ``List``, ``MutableSet``, ``Map`` and ``LinkingObjects``. Its
/// requirements are implementation details; do not conform your own types.
public protocol _ObservableCollection: Sendable {
    /// The type the key paths of an observation start from: the element
    /// type (a map's value type).
    associatedtype _KeyPathRoot
    /// A stream of the collection's changes, key paths given as property
    /// names of the elements (`"dogs.name"`).
    func changes(keyPaths: [String]) throws(ObservationError) -> CollectionChanges<Self>
}

extension _ObservableCollection {
    /// A stream of this collection's changes: `.initial(collection)`, then
    /// `.update(collection, deletions:insertions:modifications:)` for each
    /// batch of commits; see ``CollectionChanges``. Key paths name
    /// properties of the elements (`[\.name]`) and only narrow what counts
    /// as a modification; none: any of an element's own properties.
    ///
    /// Typed key paths cannot name a property that does not exist, so this
    /// form does not throw; the form with names, `changes(keyPaths: ["name"])`,
    /// throws ``ObservationError/unknownKeyPath(_:type:)`` for a wrong name.
    ///
    /// - Precondition: the collection is managed and not frozen; each key
    ///   path reads a persisted property of an element object.
    public func changes(keyPaths: [PartialKeyPath<_KeyPathRoot>] = []) -> CollectionChanges<Self> {
        let names = ObservedProperties.names(of: keyPaths)
        do { return try changes(keyPaths: names) } catch {
            preconditionFailure("Chronicle: \(error)")
        }
    }

    /// Calls `block` on the main actor with each change to this collection
    /// — `.initial` first, then one `.update` per batch of commits — the
    /// Realm SDK's callback form. Keep the token: observation stops when it
    /// is invalidated or deallocated.
    ///
    /// The block runs on the main actor, where the Realm SDK delivers on the
    /// main thread, so it may update main-actor state; it can be made from
    /// any code. To run it on another actor, name it with
    /// `observe(keyPaths:on:_:)`.
    ///
    /// ```swift
    /// @MainActor final class DogListModel {
    ///     var rows: [String] = []
    ///     var token: NotificationToken?
    ///     func start(_ dogs: Results<Dog>) {
    ///         token = dogs.observe { _ in self.rows = dogs.map(\.name) }
    ///     }
    /// }
    /// ```
    ///
    /// - Precondition: every name in `keyPaths` is a persisted property of
    ///   the elements (`observe(checkedKeyPaths:_:)` throws instead); the
    ///   collection is managed and not frozen.
    public func observe(keyPaths: [String] = [],
                        _ block: @escaping @MainActor (CollectionChange<Self>) -> Void) -> NotificationToken {
        .deliveringOnMainActor(uncheckedChanges(keyPaths: keyPaths), to: block)
    }

    /// Calls `block` on `actor` with each change to this collection: from
    /// inside an actor, `observe(on: self) { … }` lets the block change the
    /// actor's state without `await`. As `observe(keyPaths:_:)` otherwise.
    public func observe(keyPaths: [String] = [], on actor: isolated any Actor,
                        _ block: @escaping (CollectionChange<Self>) -> Void) -> NotificationToken {
        .delivering(uncheckedChanges(keyPaths: keyPaths), on: actor, to: block)
    }

    /// Calls `block` on the main actor with each change, counting an
    /// element as modified only when a property one of `keyPaths` reads
    /// changes (`[\.name]`). As `observe(keyPaths:_:)` otherwise.
    public func observe(keyPaths: [PartialKeyPath<_KeyPathRoot>],
                        _ block: @escaping @MainActor (CollectionChange<Self>) -> Void) -> NotificationToken {
        .deliveringOnMainActor(changes(keyPaths: keyPaths), to: block)
    }

    /// Calls `block` on `actor` with each change, counting an element as
    /// modified only when a property one of `keyPaths` reads changes.
    public func observe(keyPaths: [PartialKeyPath<_KeyPathRoot>], on actor: isolated any Actor,
                        _ block: @escaping (CollectionChange<Self>) -> Void) -> NotificationToken {
        .delivering(changes(keyPaths: keyPaths), on: actor, to: block)
    }

    /// Like `observe(keyPaths:_:)`, but a name that is not a persisted
    /// property of the elements throws instead of stopping the program: use
    /// it for names that come from outside the code.
    ///
    /// - Throws: ``ObservationError/unknownKeyPath(_:type:)``.
    public func observe(checkedKeyPaths keyPaths: [String],
                        _ block: @escaping @MainActor (CollectionChange<Self>) -> Void) throws(ObservationError) -> NotificationToken {
        .deliveringOnMainActor(try changes(keyPaths: keyPaths), to: block)
    }

    /// Like `observe(keyPaths:on:_:)`, but a name that is not a persisted
    /// property of the elements throws.
    ///
    /// - Throws: ``ObservationError/unknownKeyPath(_:type:)``.
    public func observe(checkedKeyPaths keyPaths: [String], on actor: isolated any Actor,
                        _ block: @escaping (CollectionChange<Self>) -> Void) throws(ObservationError) -> NotificationToken {
        .delivering(try changes(keyPaths: keyPaths), on: actor, to: block)
    }

    /// The stream for the unchecked `observe` forms: a wrong name stops the
    /// program, pointing at the throwing form.
    private func uncheckedChanges(keyPaths: [String]) -> CollectionChanges<Self> {
        do { return try changes(keyPaths: keyPaths) } catch {
            preconditionFailure("Chronicle: \(error) (observe(checkedKeyPaths:) throws instead)")
        }
    }
}

extension Results: _ObservableCollection {
    /// Key paths start from the results' element type.
    public typealias _KeyPathRoot = Element
}
extension List: _ObservableCollection {
    /// Key paths start from the element type.
    public typealias _KeyPathRoot = Element
}
extension MutableSet: _ObservableCollection {
    /// Key paths start from the element type.
    public typealias _KeyPathRoot = Element
}
extension LinkingObjects: _ObservableCollection {
    /// Key paths start from the linking type.
    public typealias _KeyPathRoot = Element
}
extension Map: _ObservableCollection {
    /// Key paths start from the value type.
    public typealias _KeyPathRoot = Value
}
