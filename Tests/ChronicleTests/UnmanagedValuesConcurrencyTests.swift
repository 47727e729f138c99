import Foundation
import Testing
@testable import Chronicle

/// The storage of an unmanaged object's values: a pthread mutex, the
/// primitive values' record and an entry per value (see `UnmanagedValues`). Run under
/// ThreadSanitizer by `scripts/sanitize thread --filter Concurrency`.
@Suite("Unmanaged values (concurrency)")
struct UnmanagedValuesConcurrencyTests {
    /// Read-modify-write through the lock from many tasks at once: any
    /// update the lock failed to serialise would be lost.
    @Test func theLockSerialisesReadModifyWrites() async {
        let counter = Counter()
        let tasks = 8, rounds = 2_000
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<tasks {
                group.addTask {
                    for _ in 0..<rounds {
                        counter.unmanagedStorage.withLockedHeader { _, values in
                            let value = values.value(1, as: Int.self)
                            // Widen the window between the read and the write.
                            for _ in 0..<3 { _ = values.count }
                            values.set(1, to: value + 1)
                        }
                    }
                }
            }
        }
        #expect(counter.value == tasks * rounds)
    }

    /// The values die with the object (the tail elements are destroyed by
    /// hand), and an object with more properties than the construction
    /// frame's first buffer keeps every value in place.
    @Test func valuesAreReleasedWithTheirObjectAndKeptInOrder() {
        weak var city: Address?
        do {
            let person = Person()
            let address = Address()
            address.city = "Oslo"
            person.address = address
            city = address
            #expect(person.address?.city == "Oslo")
        }
        #expect(city == nil, "the object's values were not released")

        let many = AllTypes()
        many.id = 7
        many.optString = "last but a few"
        many.numbers.append(3)
        #expect(many.unmanagedStorage.count > 16)
        #expect(many.id == 7 && many.optString == "last but a few" && Array(many.numbers) == [3])
        #expect(many.string == "" && many.unit == .sales)
    }
}
