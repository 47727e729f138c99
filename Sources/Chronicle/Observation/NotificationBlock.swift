extension NotificationToken {
    /// Consumes `changes` on a task isolated to `actor` and calls `block`
    /// with each change there, in order.
    ///
    /// The task captures `actor`, so it runs on that actor's executor (on
    /// no actor for `nil`), and `block`, which belongs to that actor, needs
    /// no `@Sendable`: a main-actor caller's callback may mutate main-actor
    /// state. A change taken from the stream after ``invalidate()`` (called
    /// on the same actor) is dropped, so the block is not called again.
    static func delivering<Changes: AsyncSequence & Sendable>(
        _ changes: Changes, on actor: isolated (any Actor)?, to block: @escaping (Changes.Element) -> Void
    ) -> NotificationToken where Changes.Failure == Never {
        NotificationToken(Task {
            _ = actor
            for await change in changes {
                guard !Task.isCancelled else { return }
                block(change)
            }
        })
    }
}

extension _ObjectProjecting {
    /// Calls `block` with each change to this object (for a projection, to
    /// its projected properties), the Realm SDK's callback form. Keep the
    /// token: observation stops when it is invalidated or deallocated.
    ///
    /// `block` runs on `actor`, which defaults to the caller's actor: called
    /// from the main actor, the block runs on the main actor (where the
    /// Realm SDK delivers on the main thread), so it may update main-actor
    /// state. Called from no actor, it runs on a task of its own. Changes
    /// arrive in commit order, as ``changes(keyPaths:)-([String])`` streams
    /// them.
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
    ///   projected) property; ``observe(checkedKeyPaths:on:_:)`` throws
    ///   instead. The object is managed and not frozen.
    public func observe(keyPaths: [String] = [], on actor: isolated (any Actor)? = #isolation,
                        _ block: @escaping (ObjectChange<Self>) -> Void) -> NotificationToken {
        let stream: ObjectChanges<Self>
        do { stream = try changes(keyPaths: keyPaths) } catch {
            preconditionFailure("Chronicle: \(error) (observe(checkedKeyPaths:) throws instead)")
        }
        return .delivering(stream, on: actor, to: block)
    }

    /// Calls `block` with each change to the properties `keyPaths` read:
    /// `[\.firstName]`, or nested, `[\.address?.city]`. As
    /// ``observe(keyPaths:on:_:)-([String],_,_)`` otherwise.
    ///
    /// - Precondition: each key path reads a persisted (or projected) property.
    public func observe(keyPaths: [PartialKeyPath<Self>], on actor: isolated (any Actor)? = #isolation,
                        _ block: @escaping (ObjectChange<Self>) -> Void) -> NotificationToken {
        .delivering(changes(keyPaths: keyPaths), on: actor, to: block)
    }

    /// Like ``observe(keyPaths:on:_:)-([String],_,_)``, but a name that is
    /// not a persisted (or projected) property throws instead of stopping
    /// the program: use it for names that come from outside the code.
    ///
    /// - Throws: ``ObservationError/unknownKeyPath(_:type:)``.
    public func observe(checkedKeyPaths keyPaths: [String], on actor: isolated (any Actor)? = #isolation,
                        _ block: @escaping (ObjectChange<Self>) -> Void) throws(ObservationError) -> NotificationToken {
        .delivering(try changes(keyPaths: keyPaths), on: actor, to: block)
    }
}
