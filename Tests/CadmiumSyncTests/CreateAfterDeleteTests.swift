// A create meets a delete of the same global ID: a unique tag, whose ID derives from its name
// (GI2), deleted on one replica and created on another (PR1–PR4 of PushResolution.swift). A
// create is new data; the delete was about the object as its replica knew it. So whichever
// reaches the server first, the created tag lives on, the replica that created it keeps it,
// every replica converges, and a delete that the create undid without its replica having seen
// the delete is a conflict the app can see. The long campaign lost such a create once, with no
// conflict recorded: here each way in is reproduced deterministically.

@testable import CadmiumSync
import CdObjects
import CdSyncTesting
import Foundation
import PostgresNIO
import Testing

@Suite("Sync: a create meets a delete of its global ID") struct CreateAfterDeleteTests {
    /// a's clock runs two minutes ahead (the campaign's replica 3), so a's delete is stamped
    /// after b's create, which b makes later by the wall clock: the stamps cannot order them.
    private static func skewed(_ server: URL, _ name: String) throws -> ReplicaSet {
        var ahead = SyncEngineOptions.smallPages
        ahead.clockOffset = 120
        return try ReplicaSet(
            server: server, scope: TestServer.scope(name), options: [ahead, .smallPages, .smallPages])
    }

    /// a creates the tag and deletes it; then b, which never held it, creates it with a note
    /// linking it, and syncs. With `pulledTheDelete` b pulled the tombstone before creating (a
    /// create after the delete, stamped below it); without, b never heard of the delete.
    @Test(arguments: [false, true]) func aCreateStampedBelowTheDeleteBringsTheObjectBack(
        pulledTheDelete: Bool
    )
        async throws
    {
        guard let server = TestServer.url() else { return }
        let set = try Self.skewed(server, "revive-\(pulledTheDelete)")
        defer { Task { await set.close() } }
        let a = set[0], b = set[1]
        try await b.engine.syncNow()  // b has pushed (an empty first batch) and pulled before
        let old = try a.create("Tag", ["name": .string("swift")])
        try await a.engine.syncNow()
        try a.delete(old)
        try await a.engine.syncNow()
        if pulledTheDelete { try await b.engine.syncNow() }
        let tag = try b.create("Tag", ["name": .string("swift")])
        try b.create("Note", ["title": .string("b's note"), "tags": .toMany([tag])])
        try await b.engine.syncNow()
        try await set.syncAll()

        // Without having pulled the delete, b undid a's delete unknowingly: a conflict, a's loss.
        let aID = try #require(try await a.engine.status().replicaID)
        let expected = pulledTheDelete ? [] : [RecordedConflict(kind: "created", loser: aID)]
        try await Self.expectEnd(set, server, tagLives: true, conflicts: expected)
        for (i, r) in set.replicas.enumerated() {
            let tags = try r.find("Tag", "name", "swift")
            let note = try #require(try r.find("Note", "title", "b's note").first)
            #expect(try r.store.read { try $0.related(note, "tags") } == tags, "replica \(i): the note's link")
        }
    }

    /// b, which never held the tag, creates it while a's tag of that name is on the server:
    /// b's push merges into a's object. Then a, not having pulled b's create, deletes its tag.
    /// The delete is about the object as a knew it: b's create, which a never saw, stands.
    @Test func aDeleteThatHadNotSeenAConcurrentCreateLeavesTheObject() async throws {
        guard let server = TestServer.url() else { return }
        let set = try Self.skewed(server, "delete-after-merge")
        defer { Task { await set.close() } }
        let a = set[0], b = set[1]
        try await b.engine.syncNow()
        let old = try a.create("Tag", ["name": .string("swift")])
        try await a.engine.syncNow()
        let tag = try b.create("Tag", ["name": .string("swift")])
        try b.create("Note", ["title": .string("b's note"), "tags": .toMany([tag])])
        try await b.engine.syncNow()
        try a.delete(old)
        try await a.engine.syncNow()
        try await set.syncAll()

        let aID = try #require(try await a.engine.status().replicaID)
        try await Self.expectEnd(
            set, server, tagLives: true, conflicts: [RecordedConflict(kind: "created", loser: aID)])
        let note = try #require(try b.find("Note", "title", "b's note").first)
        #expect(try b.store.read { try $0.related(note, "tags") } == [tag])
    }

    /// b creates the tag and pushes; a, not having pulled that, creates it too (the last create,
    /// merged into b's) and then deletes it. a's delete is of its own create, but b's create,
    /// which a never saw, stands.
    @Test func aDeleteByTheLastCreatorLosesToAnEarlierCreateItHadNotSeen() async throws {
        guard let server = TestServer.url() else { return }
        let set = try Self.skewed(server, "last-creator")
        defer { Task { await set.close() } }
        let a = set[0], b = set[1]
        try await a.engine.syncNow()
        let tagB = try b.create("Tag", ["name": .string("swift")])
        try b.create("Note", ["title": .string("b's note"), "tags": .toMany([tagB])])
        try await b.engine.syncNow()
        let tagA = try a.create("Tag", ["name": .string("swift")])
        try await Self.pushWithoutPulling(a)
        try a.delete(tagA)
        try await Self.pushWithoutPulling(a)
        try await set.syncAll()

        let aID = try #require(try await a.engine.status().replicaID)
        try await Self.expectEnd(
            set, server, tagLives: true, conflicts: [RecordedConflict(kind: "created", loser: aID)])
    }

    /// A delete that had seen the create still wins: a pulls b's create of the tag, then deletes
    /// it. The tag is gone everywhere, and nothing is a conflict.
    @Test func aDeleteThatHadSeenTheCreateWins() async throws {
        guard let server = TestServer.url() else { return }
        let set = try Self.skewed(server, "delete-after-pull")
        defer { Task { await set.close() } }
        let a = set[0], b = set[1]
        try b.create("Tag", ["name": .string("swift")])
        try await b.engine.syncNow()
        try await a.engine.syncNow()
        try a.delete(try #require(try a.find("Tag", "name", "swift").first))
        try await a.engine.syncNow()
        try await set.syncAll()

        try await Self.expectEnd(set, server, tagLives: false, conflicts: [])
    }

    /// b, holding the tag, deletes it and creates a new tag of the same name before it syncs:
    /// one batch deletes the object and creates it again. The new tag lives, and the server
    /// holds it as a live object (not a tombstone with properties).
    @Test func aDeleteAndACreateOfOneIDInOneBatch() async throws {
        guard let server = TestServer.url() else { return }
        let set = try Self.skewed(server, "one-batch")
        defer { Task { await set.close() } }
        let a = set[0], b = set[1]
        try a.create("Tag", ["name": .string("swift")])
        try await set.syncAll()
        try b.delete(try #require(try b.find("Tag", "name", "swift").first))
        let tag = try b.create("Tag", ["name": .string("swift")])
        try b.create("Note", ["title": .string("b's note"), "tags": .toMany([tag])])
        try await b.engine.syncNow()
        try await set.syncAll()

        try await Self.expectEnd(set, server, tagLives: true, conflicts: [])
    }

    /// A replica whose history no longer reaches back to its acknowledged position sends its
    /// whole state (PC4). The tag it holds there is a state, not a create: a's delete, which b
    /// had not pulled, stands, and b's new notes arrive.
    @Test func aReplicaSendingItsWholeStateDoesNotBringBackADeletedObject() async throws {
        guard let server = TestServer.url() else { return }
        let set = try Self.skewed(server, "whole-state")
        defer { Task { await set.close() } }
        let a = set[0], b = set[1]
        let tag = try a.create("Tag", ["name": .string("swift")])
        try await set.syncAll()
        try a.delete(tag)
        try await a.engine.syncNow()
        try b.create("Note", ["title": .string("one")])
        try b.create("Note", ["title": .string("two")])
        try b.store.deleteHistory(before: try #require(try b.store.lastHistoryToken()))
        try await b.engine.syncNow()
        try await set.syncAll()

        let bID = try #require(try await b.engine.status().replicaID)
        try await Self.expectEnd(
            set, server, tagLives: false, conflicts: [RecordedConflict(kind: "deleted", loser: bID)])
        #expect(try a.find("Note", "title", "two").count == 1)
    }

    /// How every case ends: the replicas converged, the campaign's oracle finds no lost create, the
    /// tag "swift" is on every replica once when `lives` (on none otherwise), the server holds it
    /// live with its one property or as a tombstone without any, and it recorded `expected`.
    static func expectEnd(
        _ set: ReplicaSet, _ server: URL, tagLives lives: Bool, conflicts expected: [RecordedConflict]
    ) async throws {
        try set.expectConverged()
        try await expectNoLostCreate(set)
        for (i, r) in set.replicas.enumerated() {
            #expect(try r.find("Tag", "name", "swift").count == (lives ? 1 : 0), "replica \(i): the tag")
        }
        let row = ServerRow(deleted: !lives, properties: lives ? 1 : 0)
        #expect(try await serverRow(of: "swift", server, set.scope) == row)
        #expect(try await conflicts(server, set.scope) == expected)
    }

    /// The campaign's oracle (CreateLossOracle.swift) finds nothing.
    static func expectNoLostCreate(_ set: ReplicaSet) async throws {
        let report = try await CreateLossOracle.check(set.replicas, server: set.server, scope: set.scope)
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(report.creates > 0)
    }

    /// One sync of `r` whose pull fails on its first page (a connection lost mid-pull): its
    /// pushes reach the server, and it pulls nothing.
    static func pushWithoutPulling(_ r: TestReplica) async throws {
        let options = await r.engine.options
        var failing = options
        failing.afterPulledPage = { _ in throw SyncTestFailure("the pull is cut after its first page") }
        await r.engine.setOptions(failing)
        await #expect(throws: CdSyncError.self) { try await r.engine.syncNow() }
        await r.engine.setOptions(options)
        #expect(try await r.engine.status().pendingTransactions == 0)
    }

    // MARK: - The server's records

    struct ServerRow: Equatable {
        var deleted: Bool
        var properties: Int64
    }

    struct RecordedConflict: Equatable {
        var kind: String
        var loser: UUID
    }

    /// The server's row of the tag named `name`: deleted or not, and how many properties it holds.
    static func serverRow(of name: String, _ server: URL, _ scope: String) async throws -> ServerRow? {
        let gid = GlobalID.unique(root: "Tag", values: [WireValue.attribute(.string(name)).json])
        let c = try await ServerConnection.open(ServerAddress(server))
        defer { c.closeNow() }
        let rows = try await c.run(
            """
            SELECT o.deleted, (SELECT count(*) FROM cadmium_sync.properties p WHERE p.scope = o.scope AND p.gid = o.gid)
            FROM cadmium_sync.objects o WHERE o.scope = \(scope) AND o.gid = \(gid)
            """, "reading the tag's row")
        return try rows.first.map { row in
            let (deleted, properties) = try row.decode((Bool, Int64).self)
            return ServerRow(deleted: deleted, properties: properties)
        }
    }

    /// Every conflict the server recorded in `scope`, oldest first.
    static func conflicts(_ server: URL, _ scope: String) async throws -> [RecordedConflict] {
        let c = try await ServerConnection.open(ServerAddress(server))
        defer { c.closeNow() }
        return try await c.run(
            "SELECT kind, loser_replica FROM cadmium_sync.conflicts WHERE scope = \(scope) ORDER BY id", "conflicts"
        ).map { row in
            let (kind, loser) = try row.decode((String, UUID).self)
            return RecordedConflict(kind: kind, loser: loser)
        }
    }
}
