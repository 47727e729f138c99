/// A live collection of values mapped from a ``List`` or ``MutableSet`` of
/// objects, declared in a projection with `projectTo`:
///
/// ```swift
/// @Projected(\Person.friends.projectTo.firstName) var firstFriendsName: ProjectedCollection<String>
/// ```
///
/// It reads through to the underlying collection each time, so it reflects
/// appends, removals and changes to the elements. Setting an element inside
/// a write sets the property on the underlying object.
public struct ProjectedCollection<Element>: @unchecked Sendable {
    // Safety: holds Sendable collection handles and an immutable key path.
    private let source: ProjectionSource
    private let read: (ObjectBase) -> Element
    private let write: ((ObjectBase, Element) -> Void)?
    let isRecording: Bool
    /// The mapped property's persisted path on each element.
    let memberPath: [String]?
    var owner: CollectionOwner? { source.owner }

    init<Base: ObjectBase>(source: ProjectionSource, keyPath: KeyPath<Base, Element>, isRecording: Bool = false) {
        self.source = source
        read = { ($0 as! Base)[keyPath: keyPath] }
        if let writable = keyPath as? ReferenceWritableKeyPath<Base, Element> {
            write = { ($0 as! Base)[keyPath: writable] = $1 }
        } else {
            write = nil
        }
        self.isRecording = isRecording
        memberPath = isRecording ? nil : (try? KeyPathMapping.record(keyPath))?.path
    }

    /// The underlying objects, read once.
    private var objects: [ObjectBase] { source.objects() }
}

/// The collection a ``ProjectedCollection`` maps.
struct ProjectionSource: @unchecked Sendable {
    // Safety: wraps a Sendable collection handle's snapshot function.
    let objects: () -> [ObjectBase]
    /// The list or set property being mapped, when managed.
    var owner: CollectionOwner?
}

extension ProjectedCollection: RandomAccessCollection {
    /// The position of the first element: always 0.
    public var startIndex: Int { 0 }
    /// One past the last position: the number of elements.
    public var endIndex: Int { objects.count }

    /// The mapped value of the element at `position`; setting it (inside a
    /// write) sets the property on the underlying object.
    public subscript(position: Int) -> Element {
        get { read(objects[position]) }
        nonmutating set {
            guard let write else {
                preconditionFailure("Chronicle: this ProjectedCollection maps a key path that is not writable")
            }
            write(objects[position], newValue)
        }
    }

    /// Iterates over the mapped values of one snapshot of the collection.
    public func makeIterator() -> IndexingIterator<[Element]> { objects.map(read).makeIterator() }
}

extension ProjectedCollection: _RecordingCollection {}

/// Maps a collection of objects to a ``ProjectedCollection`` of one of their
/// properties: `person.friends.projectTo.firstName`.
@dynamicMemberLookup
public struct ElementMapper<Element: ObjectBase>: Sendable {
    let source: ProjectionSource
    let recording: _Recording?

    /// The collection of `member` of each element.
    public subscript<V>(dynamicMember member: KeyPath<Element, V>) -> ProjectedCollection<V> {
        if let recording {
            // Key-path recording: read `member` once on a recording element so
            // the recorder logs e.g. `friends.firstName`.
            let element = KeyPathMapping.makeRecordingInstance(Element.self, recorder: recording.recorder, prefix: recording.path)
            _ = (element as! Element)[keyPath: member]
            return ProjectedCollection(source: ProjectionSource(objects: { [] }), keyPath: member, isRecording: true)
        }
        return ProjectedCollection(source: source, keyPath: member)
    }
}

extension List where Element: ObjectBase {
    /// Maps the list to a collection of one property of its elements, for
    /// ``Projected`` declarations.
    public var projectTo: ElementMapper<Element> {
        ElementMapper(source: ProjectionSource(objects: { [self] in self.snapshot }, owner: owner), recording: recording)
    }
}

extension MutableSet where Element: ObjectBase {
    /// Maps the set to a collection of one property of its elements, for
    /// ``Projected`` declarations.
    public var projectTo: ElementMapper<Element> {
        ElementMapper(source: ProjectionSource(objects: { [self] in self.snapshot }, owner: owner), recording: nil)
    }
}
