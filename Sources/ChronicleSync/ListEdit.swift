/// A list edit by position, as the rebase transforms it: what an
/// `Event.listInsert`, `listRemove`, `listMove` or `listReplace` does to
/// the positions of a list, without its value.
///
/// Two edits made on one list state are brought into one order by
/// transforming each over the other (operational transformation):
/// ``transformed(over:isFirst:)`` gives the edit that, applied after the
/// other one, does what it meant to do. The rule (see the article "Syncing
/// across devices"): positions shift over the other's inserts before them
/// and removes before them; two inserts at one position keep the first's
/// element first; an edit of an element the other removed comes to
/// nothing; an element moved by the other is followed to its new place;
/// of two moves of one element, the second wins.
enum ListEdit: Hashable, Sendable {
    case insert(Int)
    case remove(Int)
    /// Removes the element at `from` and inserts it at `to` (an index into
    /// the list with the element removed, which is its index afterwards).
    case move(from: Int, to: Int)
    case replace(Int)

    /// This edit, made on the same state as `other`, as it applies after
    /// `other`; `nil` when it comes to nothing there.
    ///
    /// - Parameter isFirst: Whether this edit is ordered before `other`:
    ///   it then wins a tie of two inserts at one position (its element
    ///   goes first), and loses one of two moves of one element.
    /// - Complexity: O(1).
    func transformed(over other: ListEdit, isFirst: Bool) -> ListEdit? {
        switch self {
        case .insert(let index):
            return .insert(Self.gap(index, over: other, isFirst: isFirst))
        case .remove(let index):
            return Self.element(index, over: other).map(ListEdit.remove)
        case .replace(let index):
            return Self.element(index, over: other).map(ListEdit.replace)
        case .move(let from, let to):
            if case .move(let otherFrom, let otherTo) = other, otherFrom == from {
                // One element moved twice: the later move wins, to its own
                // place in the list without the element (the same list either way).
                return isFirst ? nil : .move(from: otherTo, to: to)
            }
            guard let newFrom = Self.element(from, over: other) else { return nil }
            // `other` as it applies to the list without the moved element;
            // nil when it only replaced that element.
            guard let without = other.transformed(over: .remove(from), isFirst: !isFirst) else {
                return .move(from: newFrom, to: to)
            }
            return .move(from: newFrom, to: Self.gap(to, over: without, isFirst: isFirst))
        }
    }

    /// Where the element at `index` is after `other`; `nil` if `other` removed it.
    private static func element(_ index: Int, over other: ListEdit) -> Int? {
        switch other {
        case .insert(let at):
            return at <= index ? index + 1 : index
        case .remove(let at):
            if at == index { return nil }
            return at < index ? index - 1 : index
        case .replace:
            return index
        case .move(let from, let to):
            if from == index { return to }
            let lifted = from < index ? index - 1 : index
            return to <= lifted ? lifted + 1 : lifted
        }
    }

    /// Where an insertion at `index` (a gap between elements) goes after `other`.
    private static func gap(_ index: Int, over other: ListEdit, isFirst: Bool) -> Int {
        switch other {
        case .insert(let at):
            return at < index || (at == index && !isFirst) ? index + 1 : index
        case .remove(let at):
            return at < index ? index - 1 : index
        case .replace:
            return index
        case .move(let from, let to):
            let lifted = from < index ? index - 1 : index
            return to < lifted || (to == lifted && !isFirst) ? lifted + 1 : lifted
        }
    }
}
