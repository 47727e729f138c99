import Chronicle
import ChronicleTesting
import Foundation
import Testing

/// Exit tests run their body in a new process, without the test's traits.
@Suite("Exit tests with a store")
struct ExitTestTests {
    @Test func anExitTestOpensItsStoreWithWithFreshStore() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try withFreshStore { store in
                let booked = entry(250)
                try store.write { store.add(booked) }
                // The precondition under test: a deleted object cannot be read.
                try store.write { store.delete(booked) }
                _ = booked.amount
            }
        }
        // It trapped where expected, not for want of a store.
        let standardError = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
        #expect(standardError.contains("reading 'amount' of a Entry that was deleted"))
    }

    @Test(.freshStore) func testStoreCurrentInAnExitTestFailsTheTestClearly() async {
        // Without the issue, the trap would satisfy `.failure`: a false pass.
        await withKnownIssue {
            await #expect(processExitsWith: .failure) {
                _ = TestStore.current.version
            }
        } matching: { issue in
            text(of: issue).hasPrefix("ChronicleTesting: TestStore is only available in a test with the .freshStore trait")
                && text(of: issue).contains("open a store there with withFreshStore { store in … }.")
        }
    }
}
