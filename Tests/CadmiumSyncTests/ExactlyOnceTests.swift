// Push exactly once: a replayed or duplicated batch changes nothing; a crash after the server's
// commit and before the local acknowledgement is recovered without pushing twice; a copied store
// file is detected; a server restored from an older backup gets the lost batches again.

@testable import CadmiumSync
import CdObjects
import CdSyncTesting
import Foundation
import Testing

@Suite("Sync: exactly once") struct ExactlyOnceTests {
    @Test func aReplayedBatchChangesNothing() async throws {
        guard let server = TestServer.url() else { return }
        let scope = TestServer.scope()
        let set = try ReplicaSet(1, server: server, scope: scope)
        defer { Task { await set.close() } }
        let a = set[0]
        let note = try a.create("Note", ["title": .string("v1")])
        // The batch as the engine would send it, sent twice by hand, then by the engine.
        let batch = try a.store.read { snapshot -> CollectedBatch? in
            let state = try ReplicaState(snapshot)
            return try PushCollector(
                store: a.store, schema: SyncSchema(model: a.store.model, entities: SyncTestModel.entities),
                scope: scope,
                replica: UUID(), policies: [:], modelVersion: 1, limit: SyncEngineOptions().pushBatchLimit,
                clockOffset: 0
            ).collect(snapshot, state)
        }
        var request = try #require(batch).request
        let connection = try await ServerConnection.open(ServerAddress(server))
        let first = try await connection.push(request)
        guard case let .applied(seq, _) = first else {
            Issue.record("first push: \(first)")
            return
        }
        let replay = try await connection.push(request)
        #expect(replay == .positionMismatch(server: request.to))
        // A duplicate with other contents under the same position is refused the same way.
        request.ops = []
        #expect(try await connection.push(request) == .positionMismatch(server: request.to))
        let pulled = try await connection.pull(scope, replica: UUID(), after: nil)
        #expect(pulled.sequence == seq)
        #expect(pulled.objects.count == 1)
        await connection.close()
        // The engine's own replica ID is another one: its first push goes through once.
        try await a.engine.syncNow()
        try a.update(note, ["title": .string("v2")])
        try await a.engine.syncNow()
        let status = try await a.engine.status()
        #expect(status.acknowledgedBatches == 2)
        #expect(status.pendingTransactions == 0)
    }

    @Test func aCrashAfterTheServersCommitIsRecoveredWithoutASecondPush() async throws {
        guard let server = TestServer.url() else { return }
        let scope = TestServer.scope()
        let dir = try TestServer.temporaryDirectory(scope)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("a.cdstore").path
        var faulty = SyncEngineOptions()
        faulty.failAfterServerCommit = true
        let a = try TestReplica(path: path, server: server, scope: scope, options: faulty)
        try a.create("Note", ["title": .string("once")])
        await #expect(throws: CdSyncError.self) { try await a.engine.syncNow() }
        #expect(try await a.engine.status().acknowledgedBatches == 0)
        try await a.close()
        // The process comes back: the server holds the batch; the replica adopts its position.
        let again = try TestReplica(path: path, server: server, scope: scope)
        try again.create("Note", ["title": .string("after")])
        try await again.engine.syncNow()
        let status = try await again.engine.status()
        #expect(status.pendingTransactions == 0)
        #expect(status.acknowledgedBatches == 2)
        let connection = try await ServerConnection.open(ServerAddress(server))
        let rows = try await connection.run(
            "SELECT count(*) FROM cadmium_sync.objects WHERE scope = \(scope)", "counting")
        #expect(try rows.first?.decode(Int64.self) == 2)
        await connection.close()
        let b = try TestReplica(path: dir.appendingPathComponent("b.cdstore").path, server: server, scope: scope)
        try await b.engine.syncNow()
        #expect(try b.canonicalState() == again.canonicalState())
        try await again.close()
        try await b.close()
    }

    @Test func aCopiedStoreFileThatPushesIsRefusedAsForked() async throws {
        guard let server = TestServer.url() else { return }
        let scope = TestServer.scope()
        let dir = try TestServer.temporaryDirectory(scope)
        defer { try? FileManager.default.removeItem(at: dir) }
        let original = dir.appendingPathComponent("a.cdstore").path
        var a = try TestReplica(path: original, server: server, scope: scope)
        try a.create("Note", ["title": .string("shared")])
        try await a.engine.syncNow()
        try await a.close()
        let copy = dir.appendingPathComponent("copy.cdstore").path
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: original + suffix) {
            try FileManager.default.copyItem(atPath: original + suffix, toPath: copy + suffix)
        }
        a = try TestReplica(path: original, server: server, scope: scope)
        let c = try TestReplica(path: copy, server: server, scope: scope)
        try a.create("Note", ["title": .string("on the original")])
        try await a.engine.syncNow()
        try c.create("Note", ["title": .string("on the copy")])
        do {
            try await c.engine.syncNow()
            Issue.record("the copy pushed under the original's replica ID")
        } catch let e as CdSyncError {
            #expect(e.code == .replicaForked, "\(e)")
        }
        try await a.close()
        try await c.close()
    }

    @Test func aServerRestoredFromAnOlderBackupGetsTheLostBatchesAgain() async throws {
        guard let server = TestServer.url() else { return }
        let scope = TestServer.scope()
        let set = try ReplicaSet(2, server: server, scope: scope)
        defer { Task { await set.close() } }
        let a = set[0], b = set[1]
        try a.create("Note", ["title": .string("kept")])
        try await a.engine.syncNow()
        let connection = try await ServerConnection.open(ServerAddress(server))
        let tables = ["scopes", "replicas", "objects", "properties"]
        for t in tables {
            try await connection.run(
                PostgresQueryText.backup(t, scope), "backing up \(t)")
        }
        try a.create("Note", ["title": .string("lost by the restore")])
        try await a.engine.syncNow()
        // The restore: the scope's rows as they were at the backup.
        for t in tables.reversed() { try await connection.run(PostgresQueryText.delete(t, scope), "deleting \(t)") }
        for t in tables { try await connection.run(PostgresQueryText.restore(t), "restoring \(t)") }
        await connection.close()
        try await a.engine.syncNow()
        try await b.engine.syncNow()
        try set.expectConverged()
        #expect(try b.find("Note", "title", "lost by the restore").count == 1)
        #expect(try a.canonicalState().count == 2)
    }
}

import PostgresNIO

/// SQL of the backup-and-restore test (table names are the schema's own, never input).
enum PostgresQueryText {
    static func backup(_ table: String, _ scope: String) -> PostgresQuery {
        var q = PostgresQuery(
            unsafeSQL: "CREATE TEMP TABLE backup_\(table) AS SELECT * FROM cadmium_sync.\(table) WHERE scope = $1")
        q.binds.append(scope)
        return q
    }

    static func delete(_ table: String, _ scope: String) -> PostgresQuery {
        var q = PostgresQuery(unsafeSQL: "DELETE FROM cadmium_sync.\(table) WHERE scope = $1")
        q.binds.append(scope)
        return q
    }

    static func restore(_ table: String) -> PostgresQuery {
        PostgresQuery(unsafeSQL: "INSERT INTO cadmium_sync.\(table) SELECT * FROM backup_\(table)")
    }
}
