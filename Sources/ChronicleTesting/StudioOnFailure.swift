import Chronicle
import Foundation
import Testing

/// Writes the Studio page of `store`'s journal (see
/// `Journal.studioPage()`) to a new temporary file and attaches it to the
/// running test, so the history behind a failure can be browsed.
///
/// Call it where a test has found something wrong:
///
/// ```swift
/// if total != 42 {
///     let page = recordStudioPage(of: store)
///     Issue.record("total is \(total); history: \(page?.path ?? "-")")
/// }
/// ```
///
/// The attachment is kept when `swift test` is given `--attachments-path`;
/// the file is kept in the temporary directory either way.
///
/// - Parameters:
///   - store: The store whose journal to show.
///   - name: The page's file name, without `.html`.
///   - sourceLocation: Where the attachment (or a failure to write it) is recorded.
/// - Returns: The page's file, or `nil` if it could not be written (an issue says why).
@discardableResult
public func recordStudioPage(of store: Store, named name: String = "studio",
                             sourceLocation: SourceLocation = #_sourceLocation) -> URL? {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-studio-\(UUID().uuidString)")
    let url = directory.appendingPathComponent("\(name).html")
    let html = store.studioPage()
    do {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(html.utf8).write(to: url)
    } catch {
        Issue.record("ChronicleTesting could not write the Studio page to \(url.path): \(error)", sourceLocation: sourceLocation)
        return nil
    }
    Attachment.record(Array(html.utf8), named: "\(name).html", sourceLocation: sourceLocation)
    return url
}

/// Expects `condition` to be true; when it is not, records an issue whose
/// message names a Studio page of `store`'s journal (written to a temporary
/// file and attached to the test by ``recordStudioPage(of:named:sourceLocation:)``).
///
/// ```swift
/// expect(store.objects(Person.self).count == 2, "two people", studioPageOf: store)
/// // Expectation failed: two people — the store's history: /tmp/chronicle-studio-…/studio.html
/// ```
///
/// - Parameters:
///   - condition: What should hold.
///   - comment: Said in the issue when it does not.
///   - store: The store whose history explains a failure.
///   - sourceLocation: Where a failure is reported; the caller by default.
public func expect(_ condition: Bool, _ comment: Comment? = nil, studioPageOf store: Store,
                   sourceLocation: SourceLocation = #_sourceLocation) {
    guard !condition else { return }
    let page = recordStudioPage(of: store, sourceLocation: sourceLocation)
    let what = comment.map { "Expectation failed: \($0)" } ?? "Expectation failed"
    Issue.record("\(what) — the store's history: \(page?.path ?? "(the page could not be written)")", sourceLocation: sourceLocation)
}
