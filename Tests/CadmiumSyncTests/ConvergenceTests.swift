// Two and more replicas converge through the server: creations, edits, relationships
// (to-one and many-to-many), deletes, and uniqueness-derived identity.

@testable import CadmiumSync
import CdObjects
import CdSyncTesting
import Foundation
import Testing

@Suite("Sync: convergence") struct ConvergenceTests {
    @Test func twoReplicasExchangeObjectsAndRelationships() async throws {
        guard let server = TestServer.url() else { return }
        let set = try ReplicaSet(2, server: server, scope: TestServer.scope())
        defer { Task { await set.close() } }
        let a = set[0], b = set[1]
        let folder = try a.create("Folder", ["name": .string("inbox")])
        let tag = try a.create("Tag", ["name": .string("swift")])
        try a.create("Note", ["title": .string("one"), "folder": .toOne(folder), "tags": .toMany([tag])])
        try b.create("Note", ["title": .string("two"), "rank": .attribute(.integer(7))])
        try await set.syncAll()
        let state = try set.expectConverged()
        #expect(state.count == 4)
        let one = try #require(try b.find("Note", "title", "one").first)
        let values = try #require(try b.store.read { try $0.values(of: one) })
        guard case let .toOne(f?)? = values["folder"] else {
            Issue.record("the pulled note has no folder: \(values)")
            return
        }
        #expect(try b.store.read { try $0.values(of: f)?["name"] } == .string("inbox"))
        #expect(try b.store.read { try $0.related(one, "tags") }.count == 1)
        let two = try #require(try a.find("Note", "title", "two").first)
        #expect(try a.store.read { try $0.values(of: two)?["rank"] } == .attribute(.integer(7)))
        // Nothing is pending once both synced, and a second sync moves nothing.
        #expect(try await a.engine.status().pendingTransactions == 0)
        #expect(try await b.engine.status().pendingTransactions == 0)
        // (The pull's own commit is acknowledged by one empty batch; after that, nothing moves.)
        try await a.engine.syncNow()
        let before = try await a.engine.status().acknowledgedBatches
        try await a.engine.syncNow()
        #expect(try await a.engine.status().acknowledgedBatches == before)
    }

    @Test func editsOfDifferentPropertiesMergeAndTheNewestEditOfOnePropertyWins() async throws {
        guard let server = TestServer.url() else { return }
        let set = try ReplicaSet(3, server: server, scope: TestServer.scope())
        defer { Task { await set.close() } }
        let a = set[0], b = set[1], c = set[2]
        let note = try a.create("Note", ["title": .string("draft"), "body": .string("")])
        try await set.syncAll()
        let noteB = try #require(try b.find("Note", "title", "draft").first)
        let noteC = try #require(try c.find("Note", "title", "draft").first)
        // Concurrent: a and b edit the title (b later), c edits the body; nobody syncs meanwhile.
        try a.update(note, ["title": .string("from a")])
        try await Task.sleep(for: .milliseconds(5))
        try b.update(noteB, ["title": .string("from b")])
        try c.update(noteC, ["body": .string("from c")])
        // Pushed in the opposite order of the edits: the newer stamp still wins.
        try await b.engine.syncNow()
        try await a.engine.syncNow()
        try await c.engine.syncNow()
        try await set.syncAll()
        let state = try set.expectConverged()
        let line = try #require(state.values.first { $0.hasPrefix("Note ") })
        #expect(line.contains("title=\"from b\""))
        #expect(line.contains("body=\"from c\""))
    }

    @Test func aDeleteWinsOverAConcurrentEdit() async throws {
        guard let server = TestServer.url() else { return }
        for editFirst in [true, false] {
            let set = try ReplicaSet(2, server: server, scope: TestServer.scope())
            let a = set[0], b = set[1]
            let tag = try a.create("Tag", ["name": .string("t")])
            let note = try a.create("Note", ["title": .string("doomed"), "tags": .toMany([tag])])
            try await set.syncAll()
            let noteB = try #require(try b.find("Note", "title", "doomed").first)
            try b.update(noteB, ["title": .string("edited later")])
            try await Task.sleep(for: .milliseconds(5))
            try a.delete(note)
            if editFirst {
                try await b.engine.syncNow()
                try await a.engine.syncNow()
            } else {
                try await a.engine.syncNow()
                try await b.engine.syncNow()
            }
            try await set.syncAll()
            let state = try set.expectConverged()
            #expect(!state.values.contains { $0.hasPrefix("Note ") }, "edit first: \(editFirst)")
            #expect(state.values.contains { $0.hasPrefix("Tag ") && $0.contains("notes=[]") })
            await set.close()
        }
    }

    @Test func twoReplicasCreatingTheSameTagEndUpWithOne() async throws {
        guard let server = TestServer.url() else { return }
        let set = try ReplicaSet(2, server: server, scope: TestServer.scope())
        defer { Task { await set.close() } }
        let a = set[0], b = set[1]
        let tagA = try a.create("Tag", ["name": .string("swift")])
        try a.create("Note", ["title": .string("from a"), "tags": .toMany([tagA])])
        let tagB = try b.create("Tag", ["name": .string("swift")])
        try b.create("Note", ["title": .string("from b"), "tags": .toMany([tagB])])
        try await set.syncAll()
        let state = try set.expectConverged()
        let tags = state.values.filter { $0.hasPrefix("Tag ") }
        #expect(tags.count == 1)
        #expect(try a.find("Tag", "name", "swift").count == 1)
        #expect(try b.store.read { try $0.related(tagB, "notes") }.count == 2)
    }

    @Test func aStoreWithObjectsStartsSyncingWithAllOfThem() async throws {
        guard let server = TestServer.url() else { return }
        let scope = TestServer.scope()
        let dir = try TestServer.temporaryDirectory(scope)
        defer { try? FileManager.default.removeItem(at: dir) }
        let existing = try TestReplica(
            path: dir.appendingPathComponent("old.cdstore").path, server: server, scope: scope)
        for i in 0..<20 { try existing.create("Note", ["title": .string("n\(i)")]) }
        // History before sync is deleted: the first push sends the state, not the history (PC4).
        let last = try #require(try existing.store.lastHistoryToken())
        try existing.store.deleteHistory(before: last)
        let fresh = try TestReplica(path: dir.appendingPathComponent("new.cdstore").path, server: server, scope: scope)
        try await existing.engine.syncNow()
        try await fresh.engine.syncNow()
        #expect(try fresh.canonicalState() == existing.canonicalState())
        #expect(try fresh.canonicalState().count == 20)
        try await existing.close()
        try await fresh.close()
    }
}
