// A rename of an object whose global ID derives from its unique values (GI4 of GlobalID.swift):
// the renamed tag takes the ID of its new name, references the renaming replica had seen follow
// it (PU5), and every replica converges on one object per name — whether another replica
// creates a tag of the old name or of the new one, and whichever push reaches the server first.

@testable import CadmiumSync
import CdObjects
import CdSyncTesting
import Foundation
import Testing

@Suite("Sync: renaming a tag whose global ID derives from its name") struct UniqueRenameTests {
    /// The tags of `r`, by name, and each replica's links of the note titled `title`, by tag name.
    static func tagNames(_ r: TestReplica) throws -> [String] {
        try r.store.read { s in
            try s.fetchObjects(FetchRequest(entity: "Tag")).map { _, values -> String in
                guard case let .attribute(.string(name))? = values?["name"] else { return "?" }
                return name
            }
        }.sorted()
    }

    /// Replica 0 creates the tag "swift", replica 1 links a note ("b's note") to it, and every
    /// replica syncs; returns replica 0's tag.
    static func tagLinkedFromAnotherReplica(_ set: ReplicaSet) async throws -> ObjectID {
        let old = try set[0].create("Tag", ["name": .string("swift")])
        try await set.syncAll()
        let bTag = try #require(try set[1].find("Tag", "name", "swift").first)
        try set[1].create("Note", ["title": .string("b's note"), "tags": .toMany([bTag])])
        try await set.syncAll()
        return old
    }

    static func linkedTagNames(_ r: TestReplica, note title: String) throws -> [String] {
        let note = try #require(try r.find("Note", "title", title).first, "the note \(title)")
        return try r.store.read { s in
            try s.related(note, "tags").map { tag -> String in
                guard case let .attribute(.string(name))? = try s.values(of: tag)?["name"] else { return "?" }
                return name
            }
        }.sorted()
    }

    /// a renames its synced tag "swift", which b's note links, to "swiftlang", and then creates a
    /// new "swift" with a note of its own. Two tags everywhere: b's note follows the rename.
    @Test(.timeLimit(.minutes(1))) func aRenamedTagAndANewTagOfItsOldNameAreTwoObjects() async throws {
        guard let server = TestServer.url() else { return }
        let set = try ReplicaSet(3, server: server, scope: TestServer.scope())
        defer { Task { await set.close() } }
        let a = set[0]
        let old = try await Self.tagLinkedFromAnotherReplica(set)

        try a.update(old, ["name": .string("swiftlang")])
        let new = try a.create("Tag", ["name": .string("swift")])
        try a.create("Note", ["title": .string("a's note"), "tags": .toMany([new])])
        try await a.engine.syncNow()
        try await set.syncAll()

        try set.expectConverged()
        for (i, r) in set.replicas.enumerated() {
            #expect(try Self.tagNames(r) == ["swift", "swiftlang"], "replica \(i)")
            #expect(try Self.linkedTagNames(r, note: "b's note") == ["swiftlang"], "replica \(i)")
            #expect(try Self.linkedTagNames(r, note: "a's note") == ["swift"], "replica \(i)")
        }
        #expect(try await Self.serverTags(server, set.scope) == ["swift": "swift", "swiftlang": "swiftlang"])
    }

    /// a renames "swift" to "swiftlang" while b, not having pulled that, creates "swiftlang" with
    /// a note: one "swiftlang" everywhere (the two merge, GI2), whichever push is first.
    @Test(.timeLimit(.minutes(1)), arguments: [true, false])
    func aRenameMeetsTheSameNameCreatedElsewhere(renameFirst: Bool) async throws {
        guard let server = TestServer.url() else { return }
        let set = try ReplicaSet(3, server: server, scope: TestServer.scope("rename-meets-\(renameFirst)"))
        defer { Task { await set.close() } }
        let a = set[0], b = set[1]
        let old = try a.create("Tag", ["name": .string("swift")])
        try await set.syncAll()
        try a.update(old, ["name": .string("swiftlang")])
        let tag = try b.create("Tag", ["name": .string("swiftlang")])
        try b.create("Note", ["title": .string("b's note"), "tags": .toMany([tag])])
        for r in renameFirst ? [a, b] : [b, a] { try await r.engine.syncNow() }
        try await set.syncAll()

        try set.expectConverged()
        for (i, r) in set.replicas.enumerated() {
            #expect(try Self.tagNames(r) == ["swiftlang"], "replica \(i)")
            #expect(try Self.linkedTagNames(r, note: "b's note") == ["swiftlang"], "replica \(i)")
        }
        #expect(try await Self.serverTags(server, set.scope) == ["swiftlang": "swiftlang"])
    }

    /// c, which never held the tag, creates "swift" with a note while a renames its "swift",
    /// linked from b's note, to "swiftlang". The rename moves only the links a had seen: b's note
    /// links "swiftlang", c's links c's "swift", and a's delete of the old ID lost to c's create
    /// (one `created` conflict, a's) — the same whichever push is first.
    @Test(.timeLimit(.minutes(1)), arguments: [true, false])
    func aConcurrentCreateOfTheOldNameLivesBesideTheRenamedTag(renameFirst: Bool) async throws {
        guard let server = TestServer.url() else { return }
        let set = try ReplicaSet(3, server: server, scope: TestServer.scope("rename-old-name-\(renameFirst)"))
        defer { Task { await set.close() } }
        let a = set[0], b = set[1], c = set[2]
        try await c.engine.syncNow()  // c has a position, and pulls nothing of what follows
        let old = try a.create("Tag", ["name": .string("swift")])
        try await a.engine.syncNow()
        try await b.engine.syncNow()
        let bTag = try #require(try b.find("Tag", "name", "swift").first)
        try b.create("Note", ["title": .string("b's note"), "tags": .toMany([bTag])])
        try await b.engine.syncNow()
        try await a.engine.syncNow()

        try a.update(old, ["name": .string("swiftlang")])
        let cTag = try c.create("Tag", ["name": .string("swift")])
        try c.create("Note", ["title": .string("c's note"), "tags": .toMany([cTag])])
        if renameFirst {
            try await a.engine.syncNow()
            try await CreateAfterDeleteTests.pushWithoutPulling(c)
        } else {
            try await CreateAfterDeleteTests.pushWithoutPulling(c)
            try await a.engine.syncNow()
        }
        try await set.syncAll()

        try set.expectConverged()
        for (i, r) in set.replicas.enumerated() {
            #expect(try Self.tagNames(r) == ["swift", "swiftlang"], "replica \(i)")
            #expect(try Self.linkedTagNames(r, note: "b's note") == ["swiftlang"], "replica \(i)")
            #expect(try Self.linkedTagNames(r, note: "c's note") == ["swift"], "replica \(i)")
        }
        #expect(try await Self.serverTags(server, set.scope) == ["swift": "swift", "swiftlang": "swiftlang"])
        let aID = try #require(try await a.engine.status().replicaID)
        #expect(
            try await CreateAfterDeleteTests.conflicts(server, set.scope)
                == [CreateAfterDeleteTests.RecordedConflict(kind: "created", loser: aID)])
    }

    /// a swaps the names of two tags linked from b's notes (one batch: "a" → "tmp", "b" → "a",
    /// "tmp" → "b"), and renames a third tag to the name of a fourth that it deletes: each link
    /// follows its tag (PU6), none is stripped by the deletes of the IDs the batch creates again.
    @Test(.timeLimit(.minutes(1))) func swappedNamesAndANameTakenFromADeletedTagKeepTheirLinks() async throws {
        guard let server = TestServer.url() else { return }
        let set = try ReplicaSet(3, server: server, scope: TestServer.scope())
        defer { Task { await set.close() } }
        let a = set[0], b = set[1]
        for name in ["a", "b", "old", "gone"] { try a.create("Tag", ["name": .string(name)]) }
        try await set.syncAll()
        for name in ["a", "b", "old", "gone"] {
            let tag = try #require(try b.find("Tag", "name", name).first)
            try b.create("Note", ["title": .string("on \(name)"), "tags": .toMany([tag])])
        }
        try await set.syncAll()

        let tagA = try #require(try a.find("Tag", "name", "a").first)
        let tagB = try #require(try a.find("Tag", "name", "b").first)
        try a.update(tagA, ["name": .string("tmp")])
        try a.update(tagB, ["name": .string("a")])
        try a.update(tagA, ["name": .string("b")])
        try a.delete(try #require(try a.find("Tag", "name", "gone").first))
        try a.update(try #require(try a.find("Tag", "name", "old").first), ["name": .string("gone")])
        try await a.engine.syncNow()
        try await set.syncAll()

        try set.expectConverged()
        for (i, r) in set.replicas.enumerated() {
            #expect(try Self.tagNames(r) == ["a", "b", "gone"], "replica \(i)")
            #expect(try Self.linkedTagNames(r, note: "on a") == ["b"], "replica \(i)")
            #expect(try Self.linkedTagNames(r, note: "on b") == ["a"], "replica \(i)")
            #expect(try Self.linkedTagNames(r, note: "on old") == ["gone"], "replica \(i)")
            #expect(try Self.linkedTagNames(r, note: "on gone") == [], "replica \(i)")
        }
    }

    /// a's push of its rename fails after the batch was prepared (the scope refuses a's model
    /// version for a while): the next push sends the rename again, whole (IR3), and the links
    /// follow it. Before, the retried batch sent an edit of the new ID only, and "swift" stayed
    /// live on the server beside a "swiftlang" that held nothing but its name.
    @Test(.timeLimit(.minutes(1))) func aRenameWhosePushFailedIsSentAgain() async throws {
        guard let server = TestServer.url() else { return }
        let set = try ReplicaSet(3, server: server, scope: TestServer.scope())
        defer { Task { await set.close() } }
        let a = set[0]
        let old = try await Self.tagLinkedFromAnotherReplica(set)

        try a.update(old, ["name": .string("swiftlang")])
        try await VersionsTests.setMinimumModelVersion(2, server: server, scope: set.scope)
        await #expect(throws: CdSyncError.self) { try await a.engine.syncNow() }
        try await VersionsTests.setMinimumModelVersion(0, server: server, scope: set.scope)
        try await a.engine.syncNow()
        try await set.syncAll()

        try set.expectConverged()
        for (i, r) in set.replicas.enumerated() {
            #expect(try Self.tagNames(r) == ["swiftlang"], "replica \(i)")
            #expect(try Self.linkedTagNames(r, note: "b's note") == ["swiftlang"], "replica \(i)")
        }
        #expect(try await Self.serverTags(server, set.scope) == ["swiftlang": "swiftlang"])
    }

    /// a's rename reaches the server, and a stops before acknowledging it: a adopts the server's
    /// position without the rename's map writes (IR3), so its map still names the renamed tag by
    /// the old ID. Its pull, in pages of one object, brings the new ID before the old one's
    /// tombstone (names chosen so): the renamed tag takes the new ID (PA5) instead of a second
    /// tag of the same name being created, which the uniqueness check refused on every pull.
    @Test(.timeLimit(.minutes(1))) func aRenameWhoseAcknowledgementWasLostIsAdoptedByThePull() async throws {
        guard let server = TestServer.url() else { return }
        func gid(_ name: String) -> String {
            GlobalID.unique(root: "Tag", values: [WireValue.attribute(.string(name)).json]).uuidString
        }
        let names = (0..<50).map { "tag\($0)" }
        let old = try #require(names.first { o in names.contains { gid($0) < gid(o) } })
        let new = try #require(names.first { gid($0) < gid(old) })
        var onePage = SyncEngineOptions.smallPages
        onePage.pullPageSize = 1
        let set = try ReplicaSet(server: server, scope: TestServer.scope(), options: [onePage, .smallPages])
        defer { Task { await set.close() } }
        let a = set[0], b = set[1]
        let tag = try a.create("Tag", ["name": .string(old)])
        try await set.syncAll()
        let bTag = try #require(try b.find("Tag", "name", old).first)
        try b.create("Note", ["title": .string("b's note"), "tags": .toMany([bTag])])
        try await set.syncAll()

        try a.update(tag, ["name": .string(new)])
        var failing = onePage
        failing.failAfterServerCommit = true
        await a.engine.setOptions(failing)
        await #expect(throws: CdSyncError.self) { try await a.engine.syncNow() }
        await a.engine.setOptions(onePage)
        try await a.engine.syncNow()
        try await set.syncAll()

        try set.expectConverged()
        for (i, r) in set.replicas.enumerated() {
            #expect(try Self.tagNames(r) == [new], "replica \(i)")
            #expect(try Self.linkedTagNames(r, note: "b's note") == [new], "replica \(i)")
        }
        #expect(try a.find("Tag", "name", new) == [tag], "the renamed tag kept its local object")
    }

    /// The live tags on the server: for each, the name its global ID derives from (GI2) and the
    /// name it holds. Renamed objects under an ID of another name would show as a mismatch.
    static func serverTags(_ server: URL, _ scope: String) async throws -> [String: String] {
        let c = try await ServerConnection.open(ServerAddress(server))
        defer { c.closeNow() }
        let rows = try await c.run(
            """
            SELECT o.gid, p.value::text FROM cadmium_sync.objects o
            JOIN cadmium_sync.properties p ON p.scope = o.scope AND p.gid = o.gid AND p.name = 'name'
            WHERE o.scope = \(scope) AND o.entity = 'Tag' AND NOT o.deleted
            """, "reading the tags")
        var result: [String: String] = [:]
        for row in rows {
            let (gid, json) = try row.decode((UUID, String).self)
            guard case let .attribute(.string(name)) = try WireValue(json: json, where: "Tag.name") else { continue }
            let derivedFrom = ["swift", "swiftlang"].first {
                GlobalID.unique(root: "Tag", values: [WireValue.attribute(.string($0)).json]) == gid
            }
            result[derivedFrom ?? gid.uuidString] = name
        }
        return result
    }
}
