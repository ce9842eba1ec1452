// Tombstones from before the server's migration 2, which records no deleting replica and no
// create (PR8 of PushResolution.swift): a create that brings one back without having pulled it
// records a `created` conflict whose loser is unknown (the nil UUID), instead of nothing.

@testable import CadmiumSync
import CdObjects
import CdSyncTesting
import Foundation
import Testing

@Suite("Sync: tombstones from before server migration 2") struct LegacyTombstoneTests {
    /// a creates the tag "swift" and deletes it; the server's rows then lose what migration 2
    /// added (NULL, as on rows written before it). b, which held nothing of it, creates the tag:
    /// having pulled the tombstone (no conflict) or not (a `created` conflict, loser unknown).
    @Test(.timeLimit(.minutes(1)), arguments: [false, true])
    func aCreateBringingBackAnOldTombstoneRecordsItsConflict(pulledTheDelete: Bool) async throws {
        guard let server = TestServer.url() else { return }
        let set = try ReplicaSet(2, server: server, scope: TestServer.scope("legacy-\(pulledTheDelete)"))
        defer { Task { await set.close() } }
        let a = set[0], b = set[1]
        try await b.engine.syncNow()
        let tag = try a.create("Tag", ["name": .string("swift")])
        try await a.engine.syncNow()
        try a.delete(tag)
        try await a.engine.syncNow()
        try await Self.forgetMigration2Records(server, set.scope)
        if pulledTheDelete { try await b.engine.syncNow() }
        try b.create("Tag", ["name": .string("swift")])
        try await b.engine.syncNow()
        try await set.syncAll()

        try set.expectConverged()
        for (i, r) in set.replicas.enumerated() {
            #expect(try r.find("Tag", "name", "swift").count == 1, "replica \(i): the tag lives")
        }
        let expected =
            pulledTheDelete
            ? [] : [CreateAfterDeleteTests.RecordedConflict(kind: "created", loser: CdSyncConflict.unknownReplica)]
        #expect(try await CreateAfterDeleteTests.conflicts(server, set.scope) == expected)
    }

    /// Sets the columns of migration 2 to NULL on every object of `scope`: what a row written
    /// before that migration holds.
    static func forgetMigration2Records(_ server: URL, _ scope: String) async throws {
        let c = try await ServerConnection.open(ServerAddress(server))
        defer { c.closeNow() }
        try await c.run(
            """
            UPDATE cadmium_sync.objects SET created_replica = NULL, created_seq = NULL, other_created_seq = NULL,
                delete_replica = NULL, delete_seen = NULL
            WHERE scope = \(scope)
            """, "forgetting migration 2's records")
    }
}
