import Foundation
import Testing
@testable import Chronicle

/// Issue 27: `history(of:keyPath:)` gives values typed as the key path.
@Suite("Typed history")
struct TypedHistoryTests {
    @Test func anIntKeyPathGivesInts() throws {
        let store = try scratchStore()
        let account = Counter()
        try store.write { store.add(account) }
        try store.write { account.value = 10 }
        try store.write { account.value += 5 }
        let balances: [TypedHistoryEntry<Int>] = try store.history(of: account, keyPath: \.value)
        #expect(balances.map(\.oldValue) == [nil, 0, 10])
        #expect(balances.map(\.newValue) == [0, 10, 15])
        #expect(balances.map(\.property) == ["value", "value", "value"])
    }

    @Test func optionalsAndEnumsAreTyped() throws {
        let store = try scratchStore()
        let holder = AllTypes()
        try store.write { store.add(holder) }
        try store.write { holder.optInt = 3; holder.unit = .engineering }
        try store.write { holder.optInt = nil }
        let optional: [TypedHistoryEntry<Int?>] = try store.history(of: holder, keyPath: \.optInt)
        #expect(optional.map(\.newValue) == [.some(nil), .some(3), .some(nil)])
        let units = try store.history(of: holder, keyPath: \.unit)
        #expect(units.map(\.newValue) == [.sales, .engineering])
    }
}
