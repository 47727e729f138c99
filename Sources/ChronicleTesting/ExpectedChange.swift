import Chronicle
import Testing

/// One change a block is expected to commit; see
/// ``expectCommit(in:changes:exhaustivity:sourceLocation:_:)-(_,_,_,_,()throws->R)``.
///
/// ```swift
/// try expectCommit(in: store, changes: [
///     .set(person, \.firstName, to: "Bob"),
///     .deleted(dog),
///     .created(Entry.self, [\.amount: 250, \.bookedAt: .any]),
/// ]) {
///     try model.rename(person, to: "Bob")
/// }
/// ```
public struct ExpectedChange: CustomStringConvertible {
    enum Kind {
        /// A property of the object changed; `matches` reads it after the block.
        case set(path: [String], keyPath: String, expected: String, matches: () -> Bool)
        case created
        case deleted
        /// Some object of a type was created, with values that match.
        case createdMatching(CreationMatcher)
    }

    /// The object named by ``set(_:_:to:)-(_,_,Value)``, ``created(_:)`` or ``deleted(_:)``.
    let object: ObjectBase?
    /// Where the object was when the expectation was made (it may be
    /// unmanaged then and added by the block).
    let addressBefore: (store: Store, table: Int, key: ObjectKey)?
    let kind: Kind

    private init(object: ObjectBase, kind: Kind) {
        self.object = object
        addressBefore = object.packageAddress
        self.kind = kind
    }

    private init(_ matcher: CreationMatcher) {
        object = nil
        addressBefore = nil
        kind = .createdMatching(matcher)
    }

    /// The block sets `keyPath` of `object` to `value`: the commits changed
    /// that property, and reading it afterwards gives `value`.
    ///
    /// `keyPath` names a persisted property of `object` itself (for a
    /// property of an embedded or linked object, name that object). For an
    /// object the block creates, the expectation checks the value it was
    /// created with (list it with ``created(_:)`` too).
    public static func set<Root: ObjectBase, Value: Equatable>(_ object: Root, _ keyPath: KeyPath<Root, Value>,
                                                               to value: Value) -> ExpectedChange {
        set(object, keyPath, expected: ValueText.swift(value)) { object[keyPath: keyPath] == value }
    }

    /// The block sets `keyPath` of `object` to a value `value` accepts —
    /// ``ExpectedValue/any`` for "it changed, to whatever":
    ///
    /// ```swift
    /// .set(entry, \.bookedAt, to: .any)
    /// ```
    @_disfavoredOverload
    public static func set<Root: ObjectBase, Value>(_ object: Root, _ keyPath: KeyPath<Root, Value>,
                                                    to value: ExpectedValue) -> ExpectedChange {
        set(object, keyPath, expected: value.description) { value.matches(object[keyPath: keyPath]) }
    }

    private static func set<Root: ObjectBase>(_ object: Root, _ keyPath: AnyKeyPath, expected: String,
                                              matches: @escaping () -> Bool) -> ExpectedChange {
        let path = (try? PackageHooks.propertyPath(of: keyPath)) ?? []
        return ExpectedChange(object: object, kind: .set(path: path, keyPath: "\(keyPath)", expected: expected, matches: matches))
    }

    /// The block creates `object` (adds it to the store). Embedded objects
    /// are created and deleted with their parent and need not be listed.
    ///
    /// To expect an object the block makes itself, name its type instead:
    /// ``created(_:_:)`` or ``created(_:where:sourceLocation:)``.
    public static func created(_ object: ObjectBase) -> ExpectedChange {
        ExpectedChange(object: object, kind: .created)
    }

    /// The block creates one object of type `type` whose properties have
    /// `values` (others may have any value):
    ///
    /// ```swift
    /// .created(Entry.self, [\.amount: 250, \.memo: "rent", \.bookedAt: .any])
    /// .created(Entry.self)                  // one Entry, whatever its values
    /// ```
    ///
    /// List it once per object: two matchers need two created objects. The
    /// key paths name persisted properties of `type` itself.
    public static func created<Root: Object>(_ type: Root.Type,
                                             _ values: KeyValuePairs<PartialKeyPath<Root>, ExpectedValue> = [:]) -> ExpectedChange {
        let named = values.map { (keyPath, value) in
            (path: (try? PackageHooks.propertyPath(of: keyPath)) ?? [], keyPath: "\(keyPath)", keyPathValue: keyPath, value: value)
        }
        let wording = named.map { "\($0.path.count == 1 ? $0.path[0] : $0.keyPath): \($0.value)" }.joined(separator: ", ")
        let problems = named.compactMap { property -> String? in
            property.path.count == 1 ? nil : PropertyProblem.describe(keyPath: property.keyPath, path: property.path)
        }
        return ExpectedChange(CreationMatcher(type: type, wording: wording.isEmpty ? "" : "with \(wording)", problems: problems) { object in
            let mismatches = named.filter { !$0.value.matches(object[keyPath: $0.keyPathValue]) }
            guard !mismatches.isEmpty else { return nil }
            return "with " + mismatches.map { "\($0.path.first ?? $0.keyPath): \(ValueText.swift(object[keyPath: $0.keyPathValue]))" }
                .joined(separator: ", ")
        })
    }

    /// The block creates one object of type `type` for which `condition`
    /// holds (read after the block):
    ///
    /// ```swift
    /// .created(Entry.self, where: { $0.amount > 0 && $0.memo.hasPrefix("rent") })
    /// ```
    ///
    /// - Parameter sourceLocation: Named in a failure as where the condition is.
    public static func created<Root: Object>(_ type: Root.Type, where condition: @escaping (Root) -> Bool,
                                             sourceLocation: SourceLocation = #_sourceLocation) -> ExpectedChange {
        ExpectedChange(CreationMatcher(type: type, wording: "matching the condition at \(sourceLocation.fileName):\(sourceLocation.line)",
                                       problems: []) { object in
            condition(object) ? nil : "and does not match"
        })
    }

    /// The block deletes `object`.
    public static func deleted(_ object: ObjectBase) -> ExpectedChange {
        ExpectedChange(object: object, kind: .deleted)
    }

    /// The expectation in words, e.g. `Person.firstName = "Bob"`, `created Entry with amount: 250`.
    public var description: String {
        let type = object.map { String(describing: Swift.type(of: $0)) } ?? ""
        switch kind {
        case .set(let path, let keyPath, let expected, _):
            return "\(type).\(path.isEmpty ? keyPath : path.joined(separator: ".")) = \(expected)"
        case .created: return "created \(type)"
        case .deleted: return "deleted \(type)"
        case .createdMatching(let matcher): return "created \(matcher.typeName)\(matcher.wording.isEmpty ? "" : " " + matcher.wording)"
        }
    }
}

/// Why a key path cannot name a property in an expectation.
enum PropertyProblem {
    static func describe(keyPath: String, path: [String]) -> String {
        path.isEmpty
            ? "\(keyPath) reads no persisted property"
            : "\(keyPath) reads \(path.joined(separator: ".")), a property of another object; expect a change of that object"
    }
}

/// Matches objects of one type that a block created.
struct CreationMatcher {
    /// The type's name, as the schema has it.
    let typeName: String
    /// `with amount: 250`, `matching the condition at File.swift:12`, or empty.
    let wording: String
    /// Key paths that name no property of the type itself.
    let problems: [String]
    /// The live objects of the type in `store`, by key.
    let objects: (Store) -> [ObjectKey: ObjectBase]
    /// `nil` when an object matches; otherwise why not, to follow "Entry#2
    /// was created": `with amount: 300`, `and does not match`.
    let mismatch: (ObjectBase) -> String?

    init<Root: Object>(type: Root.Type, wording: String, problems: [String], mismatch: @escaping (Root) -> String?) {
        typeName = String(describing: type)
        self.wording = wording
        self.problems = problems
        objects = { store in
            var objects: [ObjectKey: ObjectBase] = [:]
            for object in store.objects(Root.self) {
                if let key = object.packageAddress?.key { objects[key] = object }
            }
            return objects
        }
        self.mismatch = { object in (object as? Root).map(mismatch) ?? "as another type" }
    }
}
