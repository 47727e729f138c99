// The binding cache: which table of the current schema a model class reads.

extension Store {
    /// The binding of a model class to its table in `state`, or `nil` when
    /// the journal does not have the type yet.
    func tableBinding(for metadata: ClassMetadata, in state: StoreState) -> TableBinding? {
        let id = ObjectIdentifier(metadata.type)
        return bindings.withLock { bindings in
            if let cached = bindings[id], Self.isCurrent(cached, in: state) { return cached }
            guard let index = state.tableIndex(named: metadata.name) else {
                checkTypeNotRenamed(metadata, in: state)
                return nil
            }
            // A binding once made is kept for the store's life (a live handle
            // holds its table unretained, see `ObjectBase.liveTable`), and
            // reused when its schema is current again: reading alternately
            // from states of different schemas makes no new binding.
            let binding = madeBindings.withLock { made in
                if let earlier = made.first(where: { ObjectIdentifier($0.metadata.type) == id && Self.isCurrent($0, in: state) }) {
                    return earlier
                }
                checkReadable(metadata, in: state, made: made)
                let binding = TableBinding(store: self, index: index, metadata: metadata, schema: state.schema[index],
                                           schemaVersion: state.schemaVersion)
                made.append(binding)
                return binding
            }
            bindings[id] = binding
            return binding
        }
    }

    func tableBinding(for type: ObjectBase.Type, in state: StoreState) -> TableBinding? {
        // The store's own cache first: the class's metadata is then the
        // binding's, and the process-wide metadata cache (a second lock and
        // dictionary look-up on every call) is not asked.
        let id = ObjectIdentifier(type)
        if let last = UnsafeRawPointer(bitPattern: lastBinding.load(ordering: .acquiring)) {
            let binding = Unmanaged<TableBinding>.fromOpaque(last).takeUnretainedValue()
            if ObjectIdentifier(binding.metadata.type) == id, Self.isCurrent(binding, in: state) { return binding }
        }
        let found: TableBinding?
        if let cached = bindings.withLock({ $0[id] }), Self.isCurrent(cached, in: state) {
            found = cached
        } else {
            found = tableBinding(for: ClassMetadata.known(type), in: state)
        }
        if let found { lastBinding.store(UInt(bitPattern: Unmanaged.passUnretained(found).toOpaque()), ordering: .releasing) }
        return found
    }

    /// Whether a cached binding still names its class's table in `state` (a
    /// migration can append properties, and a journal opened after
    /// compaction or replay can number tables differently): checked
    /// without looking the table up by name, a string hash per handle.
    private static func isCurrent(_ binding: TableBinding, in state: StoreState) -> Bool {
        binding.index < state.schema.count
            && state.schema[binding.index].properties.count == binding.schemaPropertyCount
            && state.schemaVersion == binding.schemaVersion
            && state.schema[binding.index].name == binding.metadata.name
    }
}
