/// The interface every Chronicle collection shares — ``Results``, ``List``,
/// ``MutableSet``, ``LinkingObjects`` and ``ProjectedCollection`` — so that
/// generic code works across them (the role of the Realm SDK's
/// `RealmCollection`).
///
/// ```swift
/// func describe<C: LiveCollection>(_ dogs: C) -> String where C.Element == Dog {
///     "\(dogs.count) dogs: " + dogs.map(\.name).joined(separator: ", ")
/// }
/// ```
public protocol LiveCollection<Element>: RandomAccessCollection, Sendable where Index == Int {
    /// Whether the collection is pinned to one version and never changes.
    /// Unmanaged collections are not frozen, but they are not live either.
    var isFrozen: Bool { get }
}

extension Results: LiveCollection {}
extension List: LiveCollection {}
extension MutableSet: LiveCollection {}
extension LinkingObjects: LiveCollection {
    /// Whether the object these links point to is frozen.
    public var isFrozen: Bool { target?.frozen != nil }
}
extension ProjectedCollection: LiveCollection {
    /// Whether the mapped collection is frozen.
    public var isFrozen: Bool { owner?.frozen != nil }
}

/// A type-erased ``LiveCollection``, to store any of Chronicle's
/// collections in a property without naming its concrete type (the role of
/// the Realm SDK's `AnyRealmCollection`).
///
/// ```swift
/// final class DogListModel {
///     let dogs: AnyLiveCollection<Dog>
///     init<C: LiveCollection>(_ dogs: C) where C.Element == Dog {
///         self.dogs = AnyLiveCollection(dogs)
///     }
/// }
/// ```
///
/// It forwards every read to the wrapped collection, so it is as live as
/// that collection.
public struct AnyLiveCollection<Element>: LiveCollection, @unchecked Sendable {
    // Safety: the closures capture only the wrapped collection, which is Sendable.
    private let countOf: () -> Int
    private let elementAt: (Int) -> Element
    private let frozen: () -> Bool
    /// The wrapped collection.
    public let base: any LiveCollection

    /// Wraps `collection`.
    public init<C: LiveCollection>(_ collection: C) where C.Element == Element {
        countOf = { collection.count }
        elementAt = { collection[$0] }
        frozen = { collection.isFrozen }
        base = collection
    }

    /// The position of the first element: always 0.
    public var startIndex: Int { 0 }
    /// One past the last position: the number of elements.
    public var endIndex: Int { countOf() }
    /// The element at `position`.
    public subscript(position: Int) -> Element { elementAt(position) }
    /// Whether the wrapped collection is frozen.
    public var isFrozen: Bool { frozen() }
}
