/// A sorted multiset with value semantics whose edits cost O(chunk + page),
/// not O(n): the elements live in ascending order in shared chunks of at
/// most ``maximumChunk`` elements, and the chunks in shared pages of at most
/// ``maximumPage`` chunks.
///
/// The fold keeps one per indexed value (the keys of the objects holding it)
/// and one per link target (the links into it). A flat array there made every
/// edit copy the whole list the first time a state version touched it, and
/// shift half of it on an insert: with 1M objects over 100 index values, 10k
/// keys moved per created object. One directory of chunks still made the
/// first edit after each in-memory checkpoint copy a reference to every
/// chunk: with 10M objects over 100 values, 780 for each value a commit
/// touched, most of filing a fold's index entries. Here an edit copies the
/// page list and one page (when another state version shares them) and one
/// chunk.
///
/// A chunk keeps each element relative to a base of its own
/// (``ChunkElement``): an object key as its 32-bit distance from the base,
/// half the bytes of the key. A key too far from a chunk's base for that
/// goes to a chunk of its own; a key inserted below a chunk's first lowers
/// the base when the chunk's last key still fits.
///
/// Elements that fit one chunk are kept in it alone, with no page list and
/// no page (``isOneChunk``): most index values of an index over distinct
/// values, and most link targets, hold one element.
///
/// Equal elements may repeat (an object listed twice in a list links twice);
/// ``insert(_:)`` puts a new one after its equals.
///
/// - Complexity: `insert` and `remove` O(log n + maximumChunk + maximumPage
///   + n / (maximumChunk × maximumPage)) at worst, amortised O(log n) on
///   pages and a chunk this copy already owns; `count` O(1); iteration O(n).
struct SortedChunks<Element: ChunkElement> {
    /// What a chunk keeps before its elements.
    struct ChunkHeader {
        /// What the elements are kept relative to: the first element the
        /// chunk was made with, or one inserted before it. (A type kept as
        /// itself, like ``Backlink``, ignores it.)
        var base: Element
        /// How many elements the chunk holds, and has room for.
        var count: Int32, capacity: Int32
    }

    /// One run of elements, each kept relative to the chunk's ``base``
    /// (see ``ChunkElement``), in the chunk's own allocation: one block,
    /// where a chunk holding an array took two (the second's header and
    /// the allocator's share of it, 48 bytes a chunk). Written only while
    /// uniquely referenced, like the tries' nodes; a chunk that needs more
    /// room than it has is replaced by a larger copy (``withRoom(for:)``).
    final class Chunk: ManagedBuffer<ChunkHeader, Element.Stored>, RandomAccessCollection {
        /// An empty chunk with room for at least `capacity` elements kept
        /// relative to `base` (as many as its block holds).
        private static func make(base: Element, capacity: Int) -> Chunk {
            let chunk = unsafeDowncast(create(minimumCapacity: capacity) { _ in
                ChunkHeader(base: base, count: 0, capacity: 0)
            }, to: Chunk.self)
            let room = Int32(truncatingIfNeeded: Swift.min(chunk.capacity, Int(Int32.max)))
            chunk.withUnsafeMutablePointerToHeader { $0.pointee.capacity = room }
            return chunk
        }

        /// A chunk of `elements`, ascending, every one storable relative to
        /// the first (``SortedChunks/storablePrefix(of:from:limit:)``).
        static func of<C: Collection<Element>>(_ elements: C) -> Chunk {
            let chunk = make(base: elements.first!, capacity: elements.count)
            chunk.append(contentsOf: elements)
            return chunk
        }

        /// A chunk of `element` alone.
        static func of(_ element: Element) -> Chunk {
            of(CollectionOfOne(element))
        }

        /// A chunk of its own holding this one's elements, with room for
        /// `room` more.
        func copy(room: Int) -> Chunk {
            let count = self.count
            let copy = Chunk.make(base: base, capacity: count &+ room)
            withUnsafeMutablePointerToElements { source in
                copy.withUnsafeMutablePointers { header, target in
                    target.initialize(from: source, count: count)
                    header.pointee.count = Int32(truncatingIfNeeded: count)
                }
            }
            return copy
        }

        deinit {
            _ = withUnsafeMutablePointers { header, elements in
                elements.deinitialize(count: Int(header.pointee.count))
            }
        }

        /// What the elements are kept relative to (see ``ChunkHeader``).
        var base: Element { withUnsafeMutablePointerToHeader { $0.pointee.base } }
        var count: Int { withUnsafeMutablePointerToHeader { Int($0.pointee.count) } }
        var startIndex: Int { 0 }
        var endIndex: Int { count }
        @inline(__always)
        subscript(position: Int) -> Element {
            withUnsafeMutablePointers { header, elements in Element.element(elements[position], base: header.pointee.base) }
        }

        /// The elements as the chunk keeps them.
        var stored: StoredElements { StoredElements(chunk: self) }

        /// A chunk's elements as it keeps them (``ChunkElement/Stored``).
        struct StoredElements: RandomAccessCollection {
            let chunk: Chunk
            var startIndex: Int { 0 }
            var endIndex: Int { chunk.count }
            @inline(__always)
            subscript(position: Int) -> Element.Stored { chunk.withUnsafeMutablePointerToElements { $0[position] } }
        }

        /// `element` as this chunk keeps it, or `nil` when it cannot
        /// (``ChunkElement/stored(_:base:)``).
        @inline(__always)
        func storing(_ element: Element) -> Element.Stored? { Element.stored(element, base: base) }

        /// Whether `added` more elements fit in this chunk's block.
        @inline(__always)
        func hasRoom(for added: Int) -> Bool {
            withUnsafeMutablePointerToHeader { Int($0.pointee.count) &+ added <= Int($0.pointee.capacity) }
        }

        /// This chunk if `added` more elements fit, else a copy with room
        /// for twice its count but no more than ``SortedChunks/maximumChunk``
        /// (or for what they need, if more); the chunk must be owned.
        ///
        /// An array's own growth doubles: a chunk filled by a fold's
        /// commits (a hundred keys each, for an index of 100 values) went
        /// 100 → 200 for its last 28, and full chunks kept 1.6 bytes of
        /// buffer for each byte of keys.
        @inline(__always)
        func withRoom(for added: Int) -> Chunk {
            if hasRoom(for: added) { return self }
            let count = self.count
            return copy(room: Swift.max(added, Swift.min(SortedChunks.maximumChunk, 2 &* count) &- count))
        }

        /// Appends `elements`, ascending from at least the last element and
        /// every one storable here; the chunk must be owned and have room.
        func append<C: Collection<Element>>(contentsOf elements: C) {
            withUnsafeMutablePointers { header, values in
                let base = header.pointee.base
                var index = Int(header.pointee.count)
                precondition(index &+ elements.count <= Int(header.pointee.capacity), "SortedChunks: no room in the chunk")
                for element in elements {
                    (values + index).initialize(to: Element.stored(element, base: base)!)
                    index &+= 1
                }
                header.pointee.count = Int32(truncatingIfNeeded: index)
            }
        }

        /// Appends `value`, kept as this chunk keeps it and not below the
        /// last element; the chunk must be owned and have room.
        @inline(__always)
        func append(stored value: Element.Stored) {
            withUnsafeMutablePointers { header, values in
                let count = Int(header.pointee.count)
                precondition(count < Int(header.pointee.capacity), "SortedChunks: no room in the chunk")
                (values + count).initialize(to: value)
                header.pointee.count += 1
            }
        }

        /// Inserts `value`, kept as this chunk keeps it, after its equals;
        /// the chunk must be owned and have room.
        func insert(_ value: Element.Stored) {
            let position = stored.insertionPoint(after: value)
            withUnsafeMutablePointers { header, values in
                let count = Int(header.pointee.count)
                precondition(count < Int(header.pointee.capacity), "SortedChunks: no room in the chunk")
                (values + position + 1).moveInitialize(from: values + position, count: count &- position)
                (values + position).initialize(to: value)
                header.pointee.count += 1
            }
        }

        /// Makes `element`, below the base, the base, if every element
        /// then still fits; the chunk must be owned. Returns whether it
        /// did. O(count).
        func lowerBase(to element: Element) -> Bool {
            guard Element.stored(self[count - 1], base: element) != nil else { return false }
            withUnsafeMutablePointers { header, values in
                let old = header.pointee.base
                for index in 0..<Int(header.pointee.count) {
                    values[index] = Element.stored(Element.element(values[index], base: old), base: element)!
                }
                header.pointee.base = element
            }
            return true
        }

        /// Removes the element at `position`; the chunk must be owned.
        func remove(at position: Int) {
            withUnsafeMutablePointers { header, values in
                let count = Int(header.pointee.count)
                precondition(position >= 0 && position < count, "SortedChunks: no element at \(position)")
                (values + position).deinitialize(count: 1)
                (values + position).moveInitialize(from: values + position + 1, count: count &- position &- 1)
                header.pointee.count -= 1
            }
        }

        /// The first `count` elements and the rest, as two chunks, each in
        /// a block of its size.
        func split(keeping count: Int) -> (first: Chunk, rest: Chunk) {
            (Chunk.of(self[..<count]), Chunk.of(self[count...]))
        }
    }

    /// One run of chunks, none empty. Written only while uniquely
    /// referenced, like a chunk.
    final class Page {
        @exclusivity(unchecked) var chunks: ContiguousArray<Chunk>
        init(_ chunks: ContiguousArray<Chunk>) { self.chunks = chunks }

        /// Appends `element` to the last chunk if this page alone holds it,
        /// it is not below the chunk's last element, the chunk can keep it
        /// and is not full; the page must be owned. Returns whether it
        /// appended.
        @inline(__always)
        func appendInPlace(_ element: Element) -> Bool {
            let last = chunks.count - 1
            guard isKnownUniquelyReferenced(&chunks[last]) else { return false }
            var chunk = chunks[last]
            let count = chunk.count
            guard count < SortedChunks.maximumChunk, !(element < chunk[count - 1]),
                  let value = chunk.storing(element) else { return false }
            if !chunk.hasRoom(for: 1) {
                chunk = chunk.withRoom(for: 1)
                chunks[last] = chunk
            }
            chunk.append(stored: value)
            return true
        }

        /// The largest element. O(1).
        var lastElement: Element {
            let chunk = chunks[chunks.count - 1]
            return chunk[chunk.count - 1]
        }

        /// The position of the chunk where `element` belongs: the first
        /// whose last element is not less than it, or the last chunk.
        /// O(log chunks).
        func chunkIndex(for element: Element) -> Int {
            // Keys mostly arrive in ascending order: try the last chunk first.
            if !(element < chunks[chunks.count - 1][0]) { return chunks.count - 1 }
            var low = 0
            var high = chunks.count - 1
            while low < high {
                let middle = (low + high) / 2
                let chunk = chunks[middle]
                if chunk[chunk.count - 1] < element { low = middle + 1 } else { high = middle }
            }
            return low
        }
    }

    /// The largest chunk; a chunk that grows past it splits in two.
    static var maximumChunk: Int { 128 }
    /// The largest page; a page that grows past it splits in two.
    ///
    /// Each in-memory checkpoint keeps the page list of every value a
    /// commit after it touched, and its last page when that was less than
    /// half full (the commit copied it; a fuller one it kept, see
    /// ``lastChunkIsKept``). Pages of 16, 32 and 64 chunks keep about as
    /// much for 1M players over 100 `team` values; before the last page
    /// was kept whole, pages of 64 (a 544-byte copy) kept about 0.8 MB
    /// more than pages of 16.
    static var maximumPage: Int { 16 }

    /// Where the elements are.
    ///
    /// As many collections hold one element as hold many: an index over
    /// values that rarely repeat (an email address, an external id) keeps
    /// one collection per value, and an object that one link points to
    /// keeps one of its backlinks. A page list, a page and its chunk list
    /// were three blocks (about 150 bytes with the allocator's share) on
    /// top of the chunk, for one element.
    private enum Storage {
        /// Every element in one chunk, no page: while they fit one
        /// (``maximumChunk``, each kept relative to the chunk's base).
        case chunk(Chunk)
        /// The chunks in pages, in order; none is empty, and none of them
        /// when the collection is empty. A collection that outgrew its
        /// chunk stays paged when elements are removed.
        case pages(ContiguousArray<Page>)
    }
    private var storage = Storage.pages([])

    /// The pages, in order; none is empty. Only while the elements are
    /// paged: a collection in one chunk (``Storage/chunk(_:)``) has none.
    private(set) var pages: ContiguousArray<Page> {
        get {
            guard case .pages(let pages) = storage else { preconditionFailure("SortedChunks: one chunk, no pages") }
            return pages
        }
        _modify {
            guard case .pages(var pages) = storage else { preconditionFailure("SortedChunks: one chunk, no pages") }
            // Moved out while it is written, so that the storage holds no
            // second reference to the array (a write would copy it).
            storage = .pages([])
            defer { storage = .pages(pages) }
            yield &pages
        }
        set { storage = .pages(newValue) }
    }

    /// Whether the elements are in one chunk, without pages.
    var isOneChunk: Bool {
        if case .chunk = storage { return true }
        return false
    }

    /// The number of elements. O(1).
    private(set) var count = 0

    /// An empty multiset.
    init() {}

    /// The elements of `sorted`, which must be in ascending order.
    init<S: Sequence>(sorted: S) where S.Element == Element {
        for element in sorted { insert(element) }
    }

    /// The elements of `ascending`, which must be in ascending order, cut
    /// into full chunks and pages as appending them one by one would, but
    /// copied once per chunk instead of checked and appended per element.
    ///
    /// - Complexity: O(n).
    init(ascending: some RandomAccessCollection<Element>) {
        count = ascending.count
        guard !ascending.isEmpty else { return }
        var start = ascending.startIndex
        if ascending.count <= Self.maximumChunk,
           Self.storablePrefix(of: ascending, from: start, limit: Self.maximumChunk) == ascending.endIndex {
            storage = .chunk(Chunk.of(ascending))
            return
        }
        var chunks = ContiguousArray<Chunk>()
        chunks.reserveCapacity(Swift.min(Self.maximumPage, (ascending.count + Self.maximumChunk - 1) / Self.maximumChunk))
        while start != ascending.endIndex {
            let end = Self.storablePrefix(of: ascending, from: start, limit: Self.maximumChunk)
            chunks.append(Chunk.of(ascending[start..<end]))
            if chunks.count == Self.maximumPage {
                pages.append(Page(chunks))
                chunks.removeAll(keepingCapacity: true)
            }
            start = end
        }
        if !chunks.isEmpty { pages.append(Page(chunks)) }
    }

    /// The end of the longest run of `elements` from `start`, ascending,
    /// of at most `limit` elements, every one storable relative to the
    /// first (so one chunk can hold them). O(run).
    private static func storablePrefix<C: Collection<Element>>(of elements: C, from start: C.Index, limit: Int) -> C.Index {
        let base = elements[start]
        var end = elements.index(after: start)
        var taken = 1
        while end != elements.endIndex, taken < limit, Element.stored(elements[end], base: base) != nil {
            elements.formIndex(after: &end)
            taken += 1
        }
        return end
    }

    /// Whether `elements` are in ascending order. O(n).
    private static func ascending<C: RandomAccessCollection<Element>>(_ elements: C) -> Bool where C.Index == Int {
        var index = elements.startIndex + 1
        while index < elements.endIndex {
            if elements[index] < elements[index - 1] { return false }
            index += 1
        }
        return true
    }

    /// Whether there are no elements. O(1).
    var isEmpty: Bool { count == 0 }

    /// Every chunk, in order, for tests and diagnostics. O(chunks).
    var chunks: [Chunk] {
        switch storage {
        case .chunk(let chunk): [chunk]
        case .pages(let pages): pages.flatMap(\.chunks)
        }
    }

    /// Inserts `element` into the one chunk (``Storage/chunk(_:)``) when
    /// it has fewer than ``maximumChunk`` and can keep it relative to its
    /// base, copying it first if another copy shares it and it is less
    /// than half full. Otherwise makes the chunk the first of a page, for
    /// the paged path to go on (which leaves a shared chunk at least half
    /// full to the other copy, see ``lastChunkIsKept``), and returns
    /// `false`.
    ///
    /// - Complexity: O(maximumChunk).
    private mutating func insertIntoTheChunk(_ element: Element) -> Bool {
        guard case .chunk(var chunk) = storage else { return false }
        // Moved out, so that a uniqueness test sees only other copies.
        storage = .pages([])
        let owned = isKnownUniquelyReferenced(&chunk)
        guard chunk.count < (owned ? Self.maximumChunk : Self.maximumChunk / 2),
              let value = chunk.storing(element) else {
            storage = .pages([Page([chunk])])
            return false
        }
        chunk = owned ? chunk.withRoom(for: 1) : chunk.copy(room: 1)
        chunk.insert(value)
        storage = .chunk(chunk)
        count += 1
        return true
    }

    /// Removes one element equal to `element` from the one chunk; returns
    /// whether there was one. O(maximumChunk).
    private mutating func removeFromTheChunk(_ element: Element) -> Bool {
        guard case .chunk(var chunk) = storage else { return false }
        guard let value = chunk.storing(element) else { return false }
        let position = chunk.stored.insertionPoint(of: value)
        guard position < chunk.count, chunk.stored[position] == value else { return false }
        count -= 1
        storage = .pages([])
        guard count > 0 else { return true }
        if !isKnownUniquelyReferenced(&chunk) { chunk = chunk.copy(room: 0) }
        chunk.remove(at: position)
        storage = .chunk(chunk)
        return true
    }

    /// The page and the chunk in it where `element` belongs: the first
    /// chunk whose last element is not less than it, or the last chunk.
    /// O(log chunks).
    private func position(for element: Element) -> (page: Int, chunk: Int) {
        let lastPage = pages[pages.count - 1]
        if !(element < lastPage.chunks[0][0]) { return (pages.count - 1, lastPage.chunkIndex(for: element)) }
        var low = 0
        var high = pages.count - 1
        while low < high {
            let middle = (low + high) / 2
            if pages[middle].lastElement < element { low = middle + 1 } else { high = middle }
        }
        return (low, pages[low].chunkIndex(for: element))
    }

    /// Makes page `index` writable by this copy alone (its chunks may
    /// still be shared).
    private mutating func ownPage(_ index: Int) {
        if !isKnownUniquelyReferenced(&pages[index]) { pages[index] = Page(pages[index].chunks) }
    }

    /// Makes chunk `chunk` of page `page`, and the page, writable by this
    /// copy alone, with room for `adding` more elements.
    private mutating func ownChunk(page: Int, chunk: Int, adding: Int) {
        ownPage(page)
        let owner = pages[page]
        if isKnownUniquelyReferenced(&owner.chunks[chunk]) {
            if !owner.chunks[chunk].hasRoom(for: adding) { owner.chunks[chunk] = owner.chunks[chunk].withRoom(for: adding) }
        } else {
            owner.chunks[chunk] = owner.chunks[chunk].copy(room: adding)
        }
    }

    /// Adds `chunk` after the last one, on the last page unless it is
    /// full, or at least half full and shared with another copy (see
    /// ``lastChunkIsKept``).
    private mutating func appendChunk(_ chunk: Chunk) {
        if pages.isEmpty || pages[pages.count - 1].chunks.count >= Self.maximumPage
            || (pages[pages.count - 1].chunks.count >= Self.maximumPage / 2 && !isKnownUniquelyReferenced(&pages[pages.count - 1])) {
            pages.append(Page([chunk]))
        } else {
            ownPage(pages.count - 1)
            pages[pages.count - 1].chunks.append(chunk)
        }
    }

    /// Splits page `index` in two if it grew past ``maximumPage``; the
    /// page must be owned.
    private mutating func splitPageIfFull(_ index: Int) {
        let page = pages[index]
        guard page.chunks.count > Self.maximumPage else { return }
        let half = page.chunks.count / 2
        pages.insert(Page(ContiguousArray(page.chunks[half...])), at: index + 1)
        page.chunks.removeSubrange(half...)
    }

    /// Appends `element` to the last chunk where it lies, when it is not
    /// below the last element, there is room, and this copy alone holds the
    /// last page and chunk: the usual new key of a write. Returns whether it
    /// did. O(1).
    // The general path below takes each reference again (about 170 more
    // instructions an object in a write of new indexed objects, callgrind).
    @inline(__always)
    private mutating func appendInPlace(_ element: Element) -> Bool {
        // Not bound: a second reference to the page list would make the
        // write below copy it.
        guard case .pages = storage else { return false }
        let last = pages.count - 1
        guard last >= 0, isKnownUniquelyReferenced(&pages[last]) else { return false }
        return pages[last].appendInPlace(element)
    }

    /// Adds `element` after any equal elements.
    mutating func insert(_ element: Element) {
        if isOneChunk, insertIntoTheChunk(element) { return }
        if appendInPlace(element) {
            count += 1
            return
        }
        guard !pages.isEmpty else {
            storage = .chunk(Chunk.of(element))
            count = 1
            return
        }
        if !(element < lastElement) {
            // Not below the last element (keys mostly arrive in ascending
            // order): append, with no binary search and nothing to shift.
            // A full last chunk gets a new one after it rather than two
            // half-full ones.
            append(element)
            return
        }
        let (page, index) = position(for: element)
        ownChunk(page: page, chunk: index, adding: 1)
        let owner = pages[page]
        let chunk = owner.chunks[index]
        count += 1
        // Below the chunk's first element (and above the chunk before's
        // last), it may be below the base, or too far below the last
        // element to share its chunk.
        guard let value = chunk.storing(element) ?? (chunk.lowerBase(to: element) ? chunk.storing(element) : nil) else {
            owner.chunks.insert(Chunk.of(element), at: index)
            splitPageIfFull(page)
            return
        }
        chunk.insert(value)
        if chunk.count > Self.maximumChunk {
            let (first, rest) = chunk.split(keeping: chunk.count / 2)
            owner.chunks[index] = first
            owner.chunks.insert(rest, at: index + 1)
            splitPageIfFull(page)
        }
    }

    /// The largest element of a non-empty collection. O(1). A getter, so
    /// that no reference to the last chunk outlives it: one would make
    /// ``append(_:)`` copy the chunk it is about to write.
    private var lastElement: Element { pages[pages.count - 1].lastElement }

    /// Whether `element` would start a new chunk after the last: there is
    /// none, it is full, it cannot keep `element`, or it is kept as it is
    /// (``lastChunkIsKept``).
    private mutating func needsNewChunk(for element: Element) -> Bool {
        guard !pages.isEmpty else { return true }
        // No reference to the page or chunk outlives this: one would make
        // them look shared to `lastChunkIsKept`.
        let fullOrFar = pages[pages.count - 1].chunks.withUnsafeBufferPointer { chunks in
            chunks[chunks.count - 1].count >= Self.maximumChunk || chunks[chunks.count - 1].storing(element) == nil
        }
        return fullOrFar || lastChunkIsKept
    }

    /// Whether the last chunk is at least half full and shared with
    /// another copy (an in-memory checkpoint's): an append then starts a
    /// new chunk rather than copying it, and the other copy keeps no chunk
    /// of its own. Copying made every checkpoint of a fold keep the last
    /// chunk, and the last page, of every index value the next commit
    /// touched (see ``maximumPage``). O(1); may copy the page list, as the
    /// append that follows would.
    private var lastChunkIsKept: Bool {
        mutating get {
            let last = pages.count - 1
            guard pages[last].chunks.withUnsafeBufferPointer({ $0[$0.count - 1].count >= Self.maximumChunk / 2 }) else { return false }
            // The page first: a reference to it held here would make it look
            // shared, and a shared page's chunk list must not be written.
            if !isKnownUniquelyReferenced(&pages[last]) { return true }
            let page = pages[last]
            return !isKnownUniquelyReferenced(&page.chunks[page.chunks.count - 1])
        }
    }

    /// Adds `element`, which must not be less than the last element. O(1) amortised.
    private mutating func append(_ element: Element) {
        if needsNewChunk(for: element) {
            appendChunk(Chunk.of(element))
        } else {
            let page = pages.count - 1
            ownChunk(page: page, chunk: pages[page].chunks.count - 1, adding: 1)
            let owner = pages[page]
            owner.chunks[owner.chunks.count - 1].append(contentsOf: CollectionOfOne(element))
        }
        count += 1
    }

    /// Adds `elements`, in the order given: appended a chunk at a time
    /// while they come in ascending order from at least the last element
    /// (a fold's new keys do), one by one with ``insert(_:)`` from the
    /// first that does not.
    ///
    /// - Complexity: O(k) for k elements appended, plus ``insert(_:)``'s
    ///   for each of the rest.
    mutating func insert<C: RandomAccessCollection>(contentsOf elements: C) where C.Element == Element, C.Index == Int {
        // While they all fit one chunk, one by one into it (a value of an
        // index over distinct values gets one key).
        if count + elements.count <= Self.maximumChunk, isOneChunk || isEmpty {
            if isEmpty, !elements.isEmpty, Self.ascending(elements),
               Self.storablePrefix(of: elements, from: elements.startIndex, limit: Self.maximumChunk) == elements.endIndex {
                storage = .chunk(Chunk.of(elements))
                count = elements.count
                return
            }
            for element in elements { insert(element) }
            return
        }
        if case .chunk(let chunk) = storage { storage = .pages([Page([chunk])]) }
        var index = elements.startIndex
        while index < elements.endIndex {
            let element = elements[index]
            guard pages.isEmpty || !(element < lastElement) else { break }
            if needsNewChunk(for: element) {
                appendChunk(Chunk.of(element))
                count += 1
                index += 1
                continue
            }
            // Fill the last chunk with the ascending run that follows,
            // found first and then copied at once.
            let page = pages.count - 1
            // The base and count, not the chunk: a reference held here
            // would make `ownChunk` below copy the chunk.
            let (base, room) = pages[page].chunks.withUnsafeBufferPointer { chunks in
                (chunks[chunks.count - 1].base, Self.maximumChunk - chunks[chunks.count - 1].count)
            }
            var end = index + 1
            var previous = element
            while end < elements.endIndex, end - index < room, !(elements[end] < previous) {
                previous = elements[end]
                end += 1
            }
            // Ascending: when the run's last element fits, every one does.
            while Element.stored(elements[end - 1], base: base) == nil { end -= 1 }
            ownChunk(page: page, chunk: pages[page].chunks.count - 1, adding: end - index)
            let owner = pages[page]
            owner.chunks[owner.chunks.count - 1].append(contentsOf: elements[index..<end])
            count += end - index
            index = end
        }
        while index < elements.endIndex {
            insert(elements[index])
            index += 1
        }
    }

    /// Removes one element equal to `element`; returns whether there was one.
    @discardableResult
    mutating func remove(_ element: Element) -> Bool {
        if isOneChunk { return removeFromTheChunk(element) }
        guard !pages.isEmpty else { return false }
        let (page, index) = position(for: element)
        let position: Int, chunkCount: Int
        do {
            // Scoped, so that no reference to the chunk is left when it
            // is written below.
            let chunk = pages[page].chunks[index]
            // A chunk holds no element it cannot keep.
            guard let value = chunk.storing(element) else { return false }
            position = chunk.stored.insertionPoint(of: value)
            guard position < chunk.count, chunk.stored[position] == value else { return false }
            chunkCount = chunk.count
        }
        count -= 1
        if chunkCount == 1 {
            if pages[page].chunks.count == 1 {
                pages.remove(at: page)
            } else {
                ownPage(page)
                pages[page].chunks.remove(at: index)
            }
            return true
        }
        ownChunk(page: page, chunk: index, adding: 0)
        pages[page].chunks[index].remove(at: position)
        return true
    }

    /// The elements as one array. O(n).
    var elements: [Element] {
        var result: [Element] = []
        result.reserveCapacity(count)
        for chunk in chunks { result.append(contentsOf: chunk) }
        return result
    }
}

extension SortedChunks: Sequence {
    /// Iterates the elements in ascending order.
    struct Iterator: IteratorProtocol {
        private let pages: ContiguousArray<Page>
        private var page = 0
        private var chunk = 0
        /// The chunk being read, its count, and the next position in it.
        private var current: Chunk?
        private var count = 0
        private var position = 0

        fileprivate init(_ pages: ContiguousArray<Page>) { self.pages = pages }

        /// An iterator over one chunk's elements.
        fileprivate init(_ chunk: Chunk) {
            pages = []
            current = chunk
            count = chunk.count
        }

        mutating func next() -> Element? {
            if position < count {
                defer { position += 1 }
                return current.unsafelyUnwrapped[position]
            }
            return nextChunk()
        }

        /// Moves to the next chunk and returns its first element (chunks
        /// are never empty), or `nil` after the last.
        private mutating func nextChunk() -> Element? {
            while page < pages.count {
                let chunks = pages[page].chunks
                if chunk < chunks.count {
                    let next = chunks[chunk]
                    current = next
                    count = next.count
                    chunk += 1
                    position = 1
                    return next[0]
                }
                page += 1
                chunk = 0
            }
            return nil
        }
    }

    func makeIterator() -> Iterator {
        switch storage {
        case .chunk(let chunk): Iterator(chunk)
        case .pages(let pages): Iterator(pages)
        }
    }

    var underestimatedCount: Int { count }
}

extension SortedChunks: Equatable {
    /// Equal when they hold the same elements in the same order, however chunked. O(n).
    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.count == rhs.count && lhs.elementsEqual(rhs)
    }
}

extension SortedChunks {
    /// Traps unless the pages and chunks are non-empty and within size,
    /// each element kept as its chunk's base gives it (so, for object
    /// keys, none below the base or too far above it), the elements in
    /// ascending order across chunk and page boundaries, and they add up
    /// to ``count``. O(n).
    func _checkInvariants() {
        var total = 0
        var previous: Element?
        let pages: ContiguousArray<Page>
        switch storage {
        case .chunk(let chunk):
            precondition(!chunk.isEmpty, "SortedChunks: one empty chunk")
            pages = [Page([chunk])]
        case .pages(let paged):
            pages = paged
        }
        for page in pages {
            precondition(!page.chunks.isEmpty, "SortedChunks: empty page")
            precondition(page.chunks.count <= Self.maximumPage, "SortedChunks: oversized page")
            for chunk in page.chunks {
                precondition(!chunk.isEmpty, "SortedChunks: empty chunk")
                precondition(chunk.count <= Self.maximumChunk, "SortedChunks: oversized chunk")
                // The allocator may hand out a block up to 48 bytes larger
                // than asked for (a free block it does not split).
                precondition(chunk.capacity * MemoryLayout<Element.Stored>.stride
                             <= Self.maximumChunk * MemoryLayout<Element.Stored>.stride + 48,
                             "SortedChunks: a chunk's buffer has room for \(chunk.capacity) elements, holds \(chunk.count)")
                for (element, stored) in zip(chunk, chunk.stored) {
                    precondition(Element.stored(element, base: chunk.base) == stored, "SortedChunks: an element kept wrongly")
                    if let previous { precondition(!(element < previous), "SortedChunks: out of order") }
                    previous = element
                }
                total += chunk.count
            }
        }
        precondition(total == count, "SortedChunks: count \(count), elements \(total)")
    }
}

// Safe: pages and chunks are written only while uniquely referenced
// (`ownPage`, `ownChunk`, and for a collection of one chunk
// `insertIntoTheChunk` and `removeFromTheChunk`, which test it with the
// storage's own reference moved out), so pages and chunks reachable from two copies —
// possibly on two threads — are immutable.
extension SortedChunks: @unchecked Sendable where Element: Sendable {}
