extension NotificationToken {
    /// Consumes `changes` on a task isolated to `actor` and calls `block`
    /// with each change there, in order.
    ///
    /// `actor` is never `nil`: a task that inherits a `nil` isolated
    /// parameter runs on no actor, and a non-`Sendable` block that belongs
    /// to the caller's actor would then run off it. So the two delivery
    /// forms are the main actor (``deliveringOnMainActor(_:to:)``, whose
    /// block is `@MainActor` and so `Sendable`) and a named actor (this
    /// one: the task captures `actor`, so `block` runs on its executor and
    /// needs no `@Sendable`; the compiler checks that a block sent from
    /// another isolation may be sent). A change taken from the stream after
    /// ``invalidate()`` (called on the same actor) is dropped, so the block
    /// is not called again.
    static func delivering<Changes: AsyncSequence & Sendable>(
        _ changes: Changes, on actor: isolated any Actor, to block: @escaping (Changes.Element) -> Void
    ) -> NotificationToken where Changes.Failure == Never {
        NotificationToken(Task {
            _ = actor
            for await change in changes {
                guard !Task.isCancelled else { return }
                block(change)
            }
        })
    }

    /// Consumes `changes` on a main-actor task and calls `block` with each
    /// change there, in order; as ``delivering(_:on:to:)`` otherwise.
    static func deliveringOnMainActor<Changes: AsyncSequence & Sendable>(
        _ changes: Changes, to block: @escaping @MainActor (Changes.Element) -> Void
    ) -> NotificationToken where Changes.Failure == Never {
        NotificationToken(Task { @MainActor in
            for await change in changes {
                guard !Task.isCancelled else { return }
                block(change)
            }
        })
    }
}

extension _ObjectProjecting {
    /// Calls `block` on the main actor with each change to this object (for
    /// a projection, to its projected properties), the Realm SDK's callback
    /// form. Keep the token: observation stops when it is invalidated or
    /// deallocated.
    ///
    /// The block runs on the main actor, where the Realm SDK delivers on the
    /// main thread, so it may update main-actor state; it can be made from
    /// any code. To run it on another actor, name it:
    /// ``observe(keyPaths:on:_:)-([String],_,_)``. Changes arrive in commit
    /// order, as ``changes(keyPaths:)-([String])`` streams them.
    ///
    /// ```swift
    /// @MainActor final class ProfileModel {
    ///     var edits = 0
    ///     var token: NotificationToken?
    ///     func start(_ person: Person) {
    ///         token = person.observe(keyPaths: ["firstName"]) { _ in self.edits += 1 }
    ///     }
    /// }
    /// ```
    ///
    /// - Precondition: every name in `keyPaths` is a persisted (or
    ///   projected) property; ``observe(checkedKeyPaths:_:)`` throws
    ///   instead. The object is managed and not frozen.
    public func observe(keyPaths: [String] = [],
                        _ block: @escaping @MainActor (ObjectChange<Self>) -> Void) -> NotificationToken {
        .deliveringOnMainActor(Self.uncheckedChanges(of: self, keyPaths: keyPaths), to: block)
    }

    /// Calls `block` on `actor` with each change to this object: from inside
    /// an actor, `observe(keyPaths: ["value"], on: self) { … }` lets the
    /// block change the actor's state without `await`. As
    /// ``observe(keyPaths:_:)-([String],_)`` otherwise.
    ///
    /// - Precondition: as ``observe(keyPaths:_:)-([String],_)``.
    public func observe(keyPaths: [String] = [], on actor: isolated any Actor,
                        _ block: @escaping (ObjectChange<Self>) -> Void) -> NotificationToken {
        .delivering(Self.uncheckedChanges(of: self, keyPaths: keyPaths), on: actor, to: block)
    }

    /// Calls `block` on the main actor with each change to the properties
    /// `keyPaths` read: `[\.firstName]`, or nested, `[\.address?.city]`. As
    /// ``observe(keyPaths:_:)-([String],_)`` otherwise.
    ///
    /// - Precondition: each key path reads a persisted (or projected) property.
    public func observe(keyPaths: [PartialKeyPath<Self>],
                        _ block: @escaping @MainActor (ObjectChange<Self>) -> Void) -> NotificationToken {
        .deliveringOnMainActor(changes(keyPaths: keyPaths), to: block)
    }

    /// Calls `block` on `actor` with each change to the properties
    /// `keyPaths` read. As ``observe(keyPaths:on:_:)-([String],_,_)`` otherwise.
    public func observe(keyPaths: [PartialKeyPath<Self>], on actor: isolated any Actor,
                        _ block: @escaping (ObjectChange<Self>) -> Void) -> NotificationToken {
        .delivering(changes(keyPaths: keyPaths), on: actor, to: block)
    }

    /// Like ``observe(keyPaths:_:)-([String],_)``, but a name that is not a
    /// persisted (or projected) property throws instead of stopping the
    /// program: use it for names that come from outside the code.
    ///
    /// - Throws: ``ObservationError/unknownKeyPath(_:type:)``.
    public func observe(checkedKeyPaths keyPaths: [String],
                        _ block: @escaping @MainActor (ObjectChange<Self>) -> Void) throws(ObservationError) -> NotificationToken {
        .deliveringOnMainActor(try changes(keyPaths: keyPaths), to: block)
    }

    /// Like ``observe(keyPaths:on:_:)-([String],_,_)``, but a name that is
    /// not a persisted (or projected) property throws.
    ///
    /// - Throws: ``ObservationError/unknownKeyPath(_:type:)``.
    public func observe(checkedKeyPaths keyPaths: [String], on actor: isolated any Actor,
                        _ block: @escaping (ObjectChange<Self>) -> Void) throws(ObservationError) -> NotificationToken {
        .delivering(try changes(keyPaths: keyPaths), on: actor, to: block)
    }

    /// The stream for the unchecked `observe` forms: a wrong name stops the
    /// program, pointing at the throwing form.
    private static func uncheckedChanges(of object: Self, keyPaths: [String]) -> ObjectChanges<Self> {
        do { return try object.changes(keyPaths: keyPaths) } catch {
            preconditionFailure("Chronicle: \(error) (observe(checkedKeyPaths:) throws instead)")
        }
    }
}
