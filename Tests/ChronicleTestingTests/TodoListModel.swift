import Chronicle
import Foundation

// The view model of the "Testing with Chronicle" article.

final class TodoItem: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var title = ""
    @Persisted var isDone = false
}
extension TodoItem: @unchecked Sendable {}

/// What a row of the list shows.
final class TodoRow: Projection<TodoItem> {
    @Projected(\TodoItem.title) var title
    @Projected(\TodoItem.isDone) var isDone
}
extension TodoRow: @unchecked Sendable {}

/// The open todos, sorted by title, and the actions the screen offers.
final class TodoListModel: Sendable {
    let store: Store
    /// The rows the list shows: open todos by title, live.
    let rows: Results<TodoRow>

    init(store: Store) {
        self.store = store
        rows = store.objects(TodoRow.self).filter(#Predicate { !$0.isDone }).sorted(by: \.title)
    }

    var titles: [String] { rows.map(\.title) }

    @discardableResult
    func add(_ title: String) async throws -> TodoItem {
        let item = TodoItem()   // _id: the next ObjectId (seeded in tests)
        item.title = title
        try await store.asyncWrite(label: "add todo") { store.add(item) }
        return item
    }

    func complete(_ item: TodoItem) async throws {
        try await store.asyncWrite(label: "complete todo") { item.isDone = true }
    }

    func rename(_ item: TodoItem, to title: String) async throws {
        let trimmed = title.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed != item.title else { return }
        try await store.asyncWrite(label: "rename todo") { item.title = trimmed }
    }

    func clearCompleted() async throws {
        let done = store.objects(TodoItem.self).filter(#Predicate { $0.isDone })
        guard !done.isEmpty else { return }
        try await store.asyncWrite(label: "clear completed") { store.delete(done) }
    }
}
