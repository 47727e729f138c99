import Chronicle
@_spi(SyncServer) import ChronicleSync
import Foundation
import Logging
import NIOCore
import PostgresNIO

/// The scopes' commits in PostgreSQL: the only state the server has.
///
/// Two tables: `chronicle_commits` holds each scope's commits in server
/// order, one row per version (`(scope, version)` is the primary key, so two
/// appends can never take one version) with the writer's commit id (unique
/// per scope, so a retried push never appends twice) and the commit's
/// journal payload. `chronicle_snapshots` holds snapshot commits of a scope
/// at some versions, folded from its commits, so that a new device starts
/// from the newest one instead of replaying all history.
public struct CommitDatabase: Sendable {
    let client: PostgresClient
    let logger: Logger
    /// The channel appends notify: the payload is the scope.
    static let channel = "chronicle_commits"

    /// A database reached through `client` (which the caller runs).
    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Creates the tables if they are missing. Safe to run from several
    /// servers at once (an advisory lock serialises it).
    public func migrate() async throws {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(7214032901)", logger: logger)
            try await connection.query("""
                CREATE TABLE IF NOT EXISTS chronicle_commits (
                    scope text NOT NULL,
                    version bigint NOT NULL,
                    commit_id uuid NOT NULL,
                    payload bytea NOT NULL,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (scope, version),
                    UNIQUE (scope, commit_id)
                )
                """, logger: logger)
            try await connection.query("""
                CREATE TABLE IF NOT EXISTS chronicle_snapshots (
                    scope text NOT NULL,
                    version bigint NOT NULL,
                    payload bytea NOT NULL,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (scope, version)
                )
                """, logger: logger)
        }
    }

    /// What an append did.
    public enum AppendOutcome: Sendable, Equatable {
        /// The commits were appended now, at these versions.
        case accepted(versions: [UInt64], head: UInt64)
        /// Every commit id was accepted before (an earlier try of this push,
        /// whose answer the client did not get), at these versions. The
        /// payloads stored are the earlier try's, which may differ from
        /// this push's: a client that rebased the commits again between
        /// the tries gets its own commits back from a pull.
        case found(versions: [UInt64], head: UInt64)
        /// The scope's head is not the push's base, or some of the commit
        /// ids were accepted before and some not (an earlier try landed,
        /// and the client has more commits since): pull, rebase, push again.
        case conflict(head: UInt64)
    }

    /// Appends `push`'s commits at its base version, or finds them appended.
    ///
    /// One transaction, holding an advisory lock on the scope so that
    /// appends to one scope queue instead of failing on the unique version.
    /// Other scopes are not held up. Five round trips to the database
    /// (begin, lock, the ids and the head, insert and notify, commit): a
    /// device's write waits for them before it can wake the others.
    package func append(_ push: SyncWire.Push, scope: String) async throws -> AppendOutcome {
        let ids = push.commits.map(\.id)
        let outcome: AppendOutcome = try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\(scope)))", logger: logger)
            var known: [UUID: UInt64] = [:]
            var head: UInt64 = 0
            // The ids accepted before, and (the row without an id) the head.
            let rows = try await connection.query("""
                SELECT commit_id, version FROM chronicle_commits WHERE scope = \(scope) AND commit_id = ANY(\(ids))
                UNION ALL SELECT NULL, coalesce(max(version), 0) FROM chronicle_commits WHERE scope = \(scope)
                """, logger: logger)
            for try await (id, version) in rows.decode((UUID?, Int64).self) {
                if let id { known[id] = UInt64(version) } else { head = UInt64(version) }
            }
            if !known.isEmpty {
                guard known.count == ids.count else { return .conflict(head: head) }
                return .found(versions: ids.map { known[$0]! }, head: head)
            }
            guard head == push.base else { return .conflict(head: head) }
            var bindings = PostgresBindings(capacity: push.commits.count * 3 + 1)
            bindings.append(scope)
            var values: [String] = []
            values.reserveCapacity(push.commits.count)
            for (offset, commit) in push.commits.enumerated() {
                let n = offset * 3
                values.append("($1, $\(n + 2), $\(n + 3), $\(n + 4))")
                bindings.append(Int64(push.base) + Int64(offset) + 1)
                bindings.append(commit.id)
                bindings.append(ByteBuffer(bytes: commit.payload))
            }
            // The notification goes out when the transaction commits.
            let insert = PostgresQuery(
                unsafeSQL: "WITH inserted AS (INSERT INTO chronicle_commits (scope, version, commit_id, payload) VALUES "
                    + values.joined(separator: ",") + " RETURNING 1) SELECT pg_notify('\(Self.channel)', $1)",
                binds: bindings)
            try await connection.query(insert, logger: logger)
            let newHead = push.base + UInt64(push.commits.count)
            return .accepted(versions: Array(push.base + 1...newHead), head: newHead)
        }
        return outcome
    }

    static func head(of scope: String, on connection: PostgresConnection, logger: Logger) async throws -> UInt64 {
        let rows = try await connection.query(
            "SELECT coalesce(max(version), 0) FROM chronicle_commits WHERE scope = \(scope)", logger: logger)
        for try await (head,) in rows.decode((Int64,).self) { return UInt64(head) }
        return 0
    }

    /// The scope's last version (0 when it has no commits).
    public func head(of scope: String) async throws -> UInt64 {
        try await client.withConnection { connection in
            try await Self.head(of: scope, on: connection, logger: logger)
        }
    }

    /// Up to `limit` commits of `scope` after version `after` (fewer when
    /// they pass `byteLimit`, but at least one), and the head.
    ///
    /// One query (a waiting pull makes it once a commit is announced): the
    /// head in every row, and a row without a commit when there is none.
    package func commits(of scope: String, after: UInt64, limit: Int, byteLimit: Int) async throws -> (head: UInt64, commits: [SyncWire.WireCommit]) {
        let rows = try await client.query("""
            SELECT (SELECT coalesce(max(version), 0) FROM chronicle_commits WHERE scope = \(scope)), page.commit_id, page.payload
            FROM (SELECT 1) AS one LEFT JOIN LATERAL (
                SELECT version, commit_id, payload FROM chronicle_commits
                WHERE scope = \(scope) AND version > \(Int64(after)) ORDER BY version LIMIT \(Int64(limit))
            ) AS page ON true
            ORDER BY page.version
            """, logger: logger)
        var head: UInt64 = 0
        var commits: [SyncWire.WireCommit] = []
        var bytes = 0
        for try await (last, id, payload) in rows.decode((Int64, UUID?, ByteBuffer?).self) {
            head = UInt64(last)
            guard let id, let payload else { continue }
            if bytes >= byteLimit && !commits.isEmpty { continue }
            bytes += payload.readableBytes
            commits.append(.init(id: id, payload: Array(buffer: payload)))
        }
        return (head, commits)
    }

    /// The newest snapshot of `scope` after version `after`, if any: its version and payload.
    public func snapshot(of scope: String, after: UInt64) async throws -> (version: UInt64, payload: [UInt8])? {
        let rows = try await client.query("""
            SELECT version, payload FROM chronicle_snapshots
            WHERE scope = \(scope) AND version > \(Int64(after)) ORDER BY version DESC LIMIT 1
            """, logger: logger)
        for try await (version, payload) in rows.decode((Int64, ByteBuffer).self) {
            return (UInt64(version), Array(buffer: payload))
        }
        return nil
    }

    /// Folds the newest snapshot of `scope` and the commits after it into
    /// a new snapshot at the head, and stores it. Returns its version (`nil`
    /// when the scope has no commits after the newest snapshot).
    ///
    /// - Complexity: O(commits since the last snapshot + objects in the scope).
    @discardableResult
    public func buildSnapshot(of scope: String) async throws -> UInt64? {
        var state = StoreState()
        if let latest = try await snapshot(of: scope, after: 0) {
            state = try state.applying(try Commit(encoded: latest.payload)).state
        }
        while true {
            let page = try await commits(of: scope, after: state.version, limit: 1000, byteLimit: 32 << 20)
            if page.commits.isEmpty { break }
            for commit in page.commits { state = try state.applying(try Commit(encoded: commit.payload)).state }
        }
        guard state.version > 0 else { return nil }
        let payload = state.snapshotCommit(timestamp: Date()).encoded()
        try await client.query("""
            INSERT INTO chronicle_snapshots (scope, version, payload) VALUES (\(scope), \(Int64(state.version)), \(ByteBuffer(bytes: payload)))
            ON CONFLICT DO NOTHING
            """, logger: logger)
        return state.version
    }
}
