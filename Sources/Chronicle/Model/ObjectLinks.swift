/// Objects as link targets: the element type of `Optional` to-one links and
/// of collections of objects.
extension ObjectBase: _PersistableWrapped {
    public static var _valueKind: _PropertyKind { _PropertyKind(type: .object, objectType: self) }

    public static func _fromPersisted(_ value: PersistedValue, in context: _ReadContext) -> Self? {
        guard case .link(let key) = value else { return nil }
        return context.table.store.handle(self, key: key, .frozen(in: context.frozenState))
    }

    public func _toPersisted(in context: _WriteContext) -> PersistedValue {
        guard let key = context.transaction.linkKey(for: self) else { return .null }
        return .link(key)
    }

    public static func _recordingElement(_ recording: _Recording) -> Self? {
        KeyPathMapping.makeRecordingInstance(self, recorder: recording.recorder, prefix: recording.path) as? Self
    }
}
