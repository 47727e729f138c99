import Chronicle
import ChronicleTesting
import Testing

// The example suite of the "Testing with Chronicle" article.
@Suite(.freshStore(objectTypes: [TodoItem.self]))
struct TodoListModelTests {
    let store = TestStore.current
    let model = TodoListModel(store: TestStore.current)

    @Test func addingATodoShowsItInTheList() async throws {
        let rows = StreamProbe(model.rows.changes())

        try await model.add("Buy milk")

        let update = try await rows.nextUpdate()
        #expect(update.insertions == [0])
        #expect(model.titles == ["Buy milk"])
        let events = try store.lastCommitEvents()
        #expect(events == [
            #"create TodoItem#1 {_id: ObjectId(6774858011fe072fa5000001), title: "Buy milk", isDone: false}"#,
        ])
    }

    @Test func addingATodoCreatesOneItem() async throws {
        try await expectCommit(in: store, changes: [.created(TodoItem.self, [\.title: "Buy milk", \.isDone: false])]) {
            try await model.add("Buy milk")
        }
    }

    @Test func completingATodoCommitsOnlyIsDone() async throws {
        let milk = try await model.add("Buy milk")
        try await expectCommit(in: store, changes: [.set(milk, \.isDone, to: true)]) {
            try await model.complete(milk)
        }
        #expect(model.titles.isEmpty)
    }

    @Test func renamingTrimsAndIgnoresBlankTitles() async throws {
        let milk = try await model.add("Buy milk")
        try await expectCommit(in: store, changes: [.set(milk, \.title, to: "Buy oat milk")]) {
            try await model.rename(milk, to: "  Buy oat milk ")
        }
        try await expectCommit(in: store, changes: []) {
            try await model.rename(milk, to: "   ")
        }
    }

    @Test func aRowReportsTheRenameButNotTheCompletionOfAnotherTodo() async throws {
        let milk = try await model.add("Buy milk")
        let bread = try await model.add("Bake bread")
        let milkRow = StreamProbe(TodoRow(projecting: milk).changes(keyPaths: [\.title]))

        try await model.complete(bread)
        await milkRow.expectNoChange()

        try await model.rename(milk, to: "Buy oat milk")
        let change = try await milkRow.nextChange()
        #expect(change.properties.map(\.name) == ["title"])
    }

    @Test func clearingCompletedTodosDeletesThem() async throws {
        let milk = try await model.add("Buy milk")
        let bread = try await model.add("Bake bread")
        try await model.complete(milk)
        try await expectCommit(in: store, changes: [.deleted(milk)]) {
            try await model.clearCompleted()
        }
        #expect(model.titles == ["Bake bread"])
        _ = bread
    }

    @Test func theJournalOfADayOfTodos() async throws {
        let milk = try await model.add("Buy milk")
        try await model.add("Bake bread")
        try await model.rename(milk, to: "Buy oat milk")
        try await model.complete(milk)
        try await model.clearCompleted()
        expectJournal(store.journalForReading, matchesSnapshot: "a-day-of-todos")
    }
}
