import Testing
@testable import Chronicle

/// Reuse by an iteration reads an object's inline reference count in one
/// load (``InlineReferenceCount``) where it used to ask the runtime for each
/// count: the load must answer as the runtime's calls do, for every state
/// the answer depends on.
@Suite("Inline reference counts")
struct InlineReferenceCountTests {
    final class Thing {}

    /// What the runtime's calls answer: held once, never weakly or unowned.
    static func runtimeAnswer(_ thing: Thing) -> (heldOnce: Bool, noWeakOrUnowned: Bool) {
        let pointer = Unmanaged.passUnretained(thing)
        return (pointer.isHeldOnce, _getWeakRetainCount(thing) == 1 && _getUnownedRetainCount(thing) == 1)
    }

    @Test func theLayoutIsVerifiedOnThisPlatform() {
        #if _pointerBitWidth(_64)
        #expect(InlineReferenceCount.isVerified, "a 64-bit runtime lays its counts out as read; if not, reuse asks the runtime")
        #else
        #expect(!InlineReferenceCount.isVerified)
        #endif
    }

    @Test func theWordAnswersAsTheRuntimeDoesInEveryState() throws {
        var holders: [AnyObject] = []
        let thing = Thing()
        let pointer = Unmanaged.passUnretained(thing)
        func check(_ state: Comment, heldOnce: Bool, noWeakOrUnowned: Bool) {
            let runtime = Self.runtimeAnswer(thing)
            #expect(runtime.heldOnce == heldOnce && runtime.noWeakOrUnowned == noWeakOrUnowned, state)
            #expect(pointer.isHeldOnceAndNeverWeaklyOrUnownedReferenced == (heldOnce && noWeakOrUnowned), state)
            #expect(hasNoWeakOrUnownedReferences(thing) == noWeakOrUnowned, state)
        }
        check("fresh", heldOnce: true, noWeakOrUnowned: true)
        let second = pointer.retain()
        check("a second strong reference", heldOnce: false, noWeakOrUnowned: true)
        second.release()
        check("the second strong reference let go", heldOnce: true, noWeakOrUnowned: true)
        holders.append(UnownedHolder(thing))
        check("an unowned reference", heldOnce: true, noWeakOrUnowned: false)
        holders.removeAll()
        check("the unowned reference let go", heldOnce: true, noWeakOrUnowned: true)
        holders.append(WeakHolder(thing))
        check("a weak reference (the counts move to a side table)", heldOnce: true, noWeakOrUnowned: false)
        let third = pointer.retain()
        check("a weak and a second strong reference", heldOnce: false, noWeakOrUnowned: false)
        third.release()
        holders.removeAll()
        // The side table stays; the runtime's calls answer from it.
        check("the weak reference let go", heldOnce: true, noWeakOrUnowned: true)
        withExtendedLifetime(thing) {}
    }
}

/// Holds an object by an unowned reference alone.
final class UnownedHolder<Held: AnyObject> {
    unowned let held: Held
    init(_ held: Held) { self.held = held }
}

/// Holds an object by a weak reference alone.
final class WeakHolder<Held: AnyObject> {
    weak var held: Held?
    init(_ held: Held) { self.held = held }
}
