/// The stored values of one object: one per property of its type, in
/// schema order.
///
/// A record keeps its values in one allocation, inline, 8 bytes each (16
/// for a string, `Data`, a UUID, an object identifier or a collection's
/// array), and shares it
/// between copies until one of them changes a value (copy on write).
public struct ObjectRecord: Hashable {
    var storage: RecordStorage

    /// A record holding `values`. O(*n*).
    public init(values: ContiguousArray<PersistedValue>) {
        storage = RecordStorage.make(values)
    }

    /// A record holding `values`, in order. O(*n*).
    init<C: Collection>(_ values: C) where C.Element == PersistedValue {
        storage = RecordStorage.make(values)
    }

    /// A record of the values `storage` holds (which no one else may change).
    init(storage: RecordStorage) {
        self.storage = storage
    }

    /// The number of values (the type's property count). O(1).
    public var count: Int { storage.count }

    /// The values, indexed like ``TypeSchema/properties``. Reading makes
    /// an array and setting replaces every value: O(*n*) each. Read one
    /// value with the subscript instead.
    public var values: ContiguousArray<PersistedValue> {
        get { ContiguousArray(storage.array()) }
        set { storage = RecordStorage.make(newValue) }
    }

    /// The value of the property at `property`. O(1) for a type of at most
    /// twelve properties; setting a value of another width (a string where
    /// a number or a null was, or the reverse) makes the record anew, O(*n*).
    public subscript(property: Int) -> PersistedValue {
        @inline(__always) get {
            precondition(property >= 0 && property < storage.count, "ObjectRecord: property \(property) out of range")
            return storage.value(at: property)
        }
        set {
            precondition(property >= 0 && property < storage.count, "ObjectRecord: property \(property) out of range")
            // A value of another slot width moves the slots after it: the
            // record is made anew (a null then takes 8 bytes, as in any
            // record made from values).
            guard RecordStorage.width(storage.tag(of: property)) == RecordStorage.width(RecordStorage.Tag.of(newValue)) else {
                var values = storage.array()
                values[property] = newValue
                storage = RecordStorage.make(values)
                return
            }
            if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
            storage.replace(property, with: newValue)
        }
    }

    /// The value of `property`, or `nil` past the last one. O(1).
    @inline(__always)
    func valueIfPresent(_ property: Int) -> PersistedValue? {
        property >= 0 && property < storage.count ? storage.value(at: property) : nil
    }

    /// The values as a collection, read from the record in place (no
    /// array is made). O(1).
    var elements: Elements { Elements(record: self) }

    /// A record's values as a random-access collection over its storage.
    struct Elements: RandomAccessCollection {
        let record: ObjectRecord
        var startIndex: Int { 0 }
        var endIndex: Int { record.count }
        subscript(position: Int) -> PersistedValue { record[position] }
    }

    /// Appends a value (a property the type gained). O(*n*).
    mutating func append(_ value: PersistedValue) {
        var values = self.values
        values.append(value)
        storage = RecordStorage.make(values)
    }

    /// Traps unless the storage's layout is the one its values would be
    /// made with: every tag a kind's, and the header and tag words exactly
    /// those of a record made afresh from the values read back. O(*n*); for tests.
    func _checkInvariants() {
        storage._checkInvariants()
    }

    /// Whether both records hold equal values (``PersistedValue``'s `==`:
    /// a NaN equals a NaN). O(*n*).
    public static func == (lhs: ObjectRecord, rhs: ObjectRecord) -> Bool {
        if lhs.storage === rhs.storage { return true }
        guard lhs.count == rhs.count else { return false }
        for property in 0..<lhs.count where lhs.storage.value(at: property) != rhs.storage.value(at: property) {
            return false
        }
        return true
    }

    /// Hashes the values in order, as an array of them would. O(*n*).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for property in 0..<count { hasher.combine(storage.value(at: property)) }
    }
}

// `@unchecked Sendable`: `ManagedBuffer` is not `Sendable`, but a record's
// storage is written only while this record holds the only reference to it
// (the subscript's setter checks `isKnownUniquelyReferenced`, and copies
// otherwise), so no thread ever reads a storage another thread writes.
extension ObjectRecord: @unchecked Sendable {}
