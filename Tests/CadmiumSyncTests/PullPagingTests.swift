// Pulls in pages (PG1–PG8 of SyncEngine+Pull.swift): a backlog of many pages gives the same
// objects as one big pull, relationships to objects of later pages included; a connection cut or
// a replica killed between pages leaves the store as it was and the next pull resumes from the
// cursor, applying nothing twice; a remote transaction larger than a page is never seen in part.

@testable import CadmiumSync
import CdFaultSupport
import CdObjects
import CdSyncTesting
import Foundation
import Testing

@Suite("Sync: paged pulls") struct PullPagingTests {
    @Test(.timeLimit(.minutes(2))) func aBacklogOfManyPagesPullsTheSameObjectsAsOneBigPull() async throws {
        guard let server = TestServer.url() else { return }
        let scope = TestServer.scope()
        let dir = try TestServer.temporaryDirectory(scope)
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = try TestReplica(path: dir.appendingPathComponent("a.cdstore").path, server: server, scope: scope)
        try await Self.backlog(on: a)
        let pages = Recorded(0)
        var small = SyncEngineOptions()
        small.pullPageSize = 3
        small.afterPulledPage = { _ in pages.update { $0 += 1 } }
        var big = SyncEngineOptions()
        big.pullPageSize = 1_000_000
        let paged = try TestReplica(
            path: dir.appendingPathComponent("paged.cdstore").path, server: server, scope: scope, options: small)
        let whole = try TestReplica(
            path: dir.appendingPathComponent("whole.cdstore").path, server: server, scope: scope, options: big)
        try await paged.engine.syncNow()
        try await whole.engine.syncNow()
        let expected = try a.canonicalState()
        #expect(expected.count >= 40)
        #expect(try paged.canonicalState() == expected)
        #expect(try whole.canonicalState() == expected)
        // Two passes of pages of 3 over every changed object (PG4), deleted ones in the first only.
        #expect(pages.current >= 2 * expected.count / 3, "the backlog was not pulled in pages")
        // Links to objects of later pages arrived (the tags were renamed after the notes linked them).
        let linked = try paged.store.read { s in
            try s.fetchIDs(FetchRequest(entity: "Note")).filter { try !s.related($0, "tags").isEmpty }.count
        }
        #expect(linked >= 10)
        for r in [a, paged, whole] {
            #expect(try r.store.read { try ObjectStoreVerifier().verify($0.transactionForVerification) }.isEmpty)
            try await r.close()
        }
    }

    @Test(.timeLimit(.minutes(2))) func aConnectionCutBetweenPagesAppliesNothingAndTheNextPullResumes() async throws {
        guard let server = try await PrivateServer.start() else { return }
        defer { server.stop() }
        let scope = TestServer.scope()
        let dir = try TestServer.temporaryDirectory(scope)
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = try TestReplica(path: dir.appendingPathComponent("a.cdstore").path, server: server.url, scope: scope)
        try await Self.backlog(on: a)
        let cut = Recorded(false)
        var options = SyncEngineOptions()
        options.pullPageSize = 4
        options.serverTimeout = .seconds(5)
        options.afterPulledPage = { page in
            guard page == 3,
                cut.update({ done -> Bool in
                    defer { done = true }
                    return !done
                })
            else { return }
            try await server.terminateClientBackends()
        }
        let b = try TestReplica(path: dir.appendingPathComponent("b.cdstore").path, server: server.url, scope: scope)
        await b.engine.setOptions(options)
        do {
            try await b.engine.syncNow()
            Issue.record("a pull whose connection was cut between pages succeeded")
        } catch let e as CdSyncError {
            #expect(e.code == .serverUnreachable, "\(e)")
        }
        #expect(cut.current)
        // Nothing of the pull is in the store, the cursor did not move, nor did the server's
        // record of how far b pulled (SP3).
        #expect(try b.canonicalState().isEmpty)
        #expect(try await b.engine.status().cursor == nil)
        let replica = try #require(try await b.engine.status().replicaID)
        let recorded = try await Self.pulled(server.url, scope, replica)
        #expect((recorded ?? 0) == 0, "the server recorded a pull up to \(String(describing: recorded))")
        // The next pull reads again from the cursor and applies everything once.
        try await b.engine.syncNow()
        #expect(try b.canonicalState() == a.canonicalState())
        #expect(try Self.counts(b) == Self.counts(a))
        try await a.close()
        try await b.close()
    }

    @Test(.timeLimit(.minutes(2))) func aReplicaKilledBetweenPagesResumesFromItsCursor() async throws {
        guard let server = TestServer.url() else { return }
        let scope = TestServer.scope()
        let dir = try TestServer.temporaryDirectory(scope)
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = try TestReplica(path: dir.appendingPathComponent("a.cdstore").path, server: server, scope: scope)
        try await Self.backlog(on: a)
        let path = dir.appendingPathComponent("b.cdstore").path
        // b has pulled once (a cursor to resume from), then a's next transaction is pending.
        var b = try TestReplica(path: path, server: server, scope: scope)
        try await b.engine.syncNow()
        let cursor = try #require(try await b.engine.status().cursor)
        let before = try b.canonicalState()
        try await b.close()
        let notes = try a.store.read { try $0.fetchIDs(FetchRequest(entity: "Note")) }
        try a.store.apply(
            ChangeSet(updated: Dictionary(uniqueKeysWithValues: notes.map { ($0, ["body": .string("v2")]) })))
        try a.create("Folder", ["name": .string("after the kill")])
        try await a.engine.syncNow()
        // A process pulls in pages of 2, pausing after each: killed after its third page.
        let process = try ChildProcess(
            BuiltExecutable.locate("cadmium-sync-replica"),
            ["slow-pull", path, server.absoluteString, scope, "2", "300"],
            outputPath: dir.appendingPathComponent("slow.log").path)
        let end = ContinuousClock.now + .seconds(60)
        while !process.output.contains("page 3"), ContinuousClock.now < end {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(process.output.contains("page 3"), "the pull never reached its third page: \(process.output)")
        try await process.kill()
        #expect(!process.output.contains("done"), "the pull finished before the kill")
        // The store as it was before the pull: same objects, same cursor; it verifies.
        b = try TestReplica(path: path, server: server, scope: scope)
        #expect(try b.canonicalState() == before)
        #expect(try await b.engine.status().cursor == cursor)
        #expect(try b.store.read { try ObjectStoreVerifier().verify($0.transactionForVerification) }.isEmpty)
        try await b.engine.syncNow()
        #expect(try b.canonicalState() == a.canonicalState())
        #expect(try Self.counts(b) == Self.counts(a))
        #expect(try b.find("Folder", "name", "after the kill").count == 1)
        try await a.close()
        try await b.close()
    }

    @Test(.timeLimit(.minutes(2))) func aRemoteTransactionLargerThanAPageIsNeverSeenInPart() async throws {
        guard let server = TestServer.url() else { return }
        let scope = TestServer.scope()
        let dir = try TestServer.temporaryDirectory(scope)
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = try TestReplica(path: dir.appendingPathComponent("a.cdstore").path, server: server, scope: scope)
        let b = try TestReplica(path: dir.appendingPathComponent("b.cdstore").path, server: server, scope: scope)
        // What b shows (outside its pull's uncommitted write) after every page of its pulls.
        let seen = Recorded<[Int]>([])
        var options = SyncEngineOptions()
        options.pullPageSize = 4
        options.afterPulledPage = { _ in
            let count = try b.store.read { s in
                try s.fetchObjects(FetchRequest(entity: "Note")).filter {
                    if case let .attribute(.string(t))? = $0.values?["title"] { return t.hasPrefix("big") }
                    return false
                }.count
            }
            seen.update { $0.append(count) }
        }
        await b.engine.setOptions(options)
        // One transaction of 25 notes: b shows none of them until its pull commits, then all.
        let ids = try a.store.newObjectIDs(entity: "Note", count: 25)
        try a.store.apply(
            ChangeSet(inserted: Dictionary(uniqueKeysWithValues: ids.map { ($0, ["title": .string("big 1")]) })))
        try await a.engine.syncNow()
        try await b.engine.syncNow()
        #expect(seen.current.count >= 25 / 4, "the pull was not paged")
        #expect(seen.current.allSatisfy { $0 == 0 }, "b showed part of the transaction: \(seen.current)")
        #expect(try b.find("Note", "title", "big 1").count == 25)
        // One transaction editing all 25: never seen in part either.
        try a.store.apply(
            ChangeSet(updated: Dictionary(uniqueKeysWithValues: ids.map { ($0, ["title": .string("big 2")]) })))
        try await a.engine.syncNow()
        let edits = Recorded<[Int]>([])
        options.afterPulledPage = { _ in
            let count = try b.find("Note", "title", "big 2").count
            edits.update { $0.append(count) }
        }
        await b.engine.setOptions(options)
        try await b.engine.syncNow()
        #expect(edits.current.count >= 25 / 4)
        #expect(edits.current.allSatisfy { $0 == 0 }, "b showed part of the edit: \(edits.current)")
        #expect(try b.find("Note", "title", "big 2").count == 25)
        #expect(try b.canonicalState() == a.canonicalState())
        try await a.close()
        try await b.close()
    }

    // MARK: - Helpers

    /// A backlog of many pushes on `a`: folders and tags, notes linking them, then edits and
    /// deletes, and renames of the tags last, so that they come in later pages than the notes
    /// that link them (PG4).
    static func backlog(on a: TestReplica) async throws {
        var folders: [ObjectID] = [], tags: [ObjectID] = []
        for i in 0..<4 { folders.append(try a.create("Folder", ["name": .string("folder \(i)")])) }
        for i in 0..<6 { tags.append(try a.create("Tag", ["name": .string("tag \(i)")])) }
        try await a.engine.syncNow()
        var notes: [ObjectID] = []
        for i in 0..<36 {
            notes.append(
                try a.create(
                    "Note",
                    [
                        "title": .string("note \(i)"), "rank": .attribute(.integer(Int64(i))),
                        "folder": .toOne(folders[i % 4]), "tags": .toMany([tags[i % 6], tags[(i + 1) % 6]]),
                    ]))
            if i % 5 == 4 { try await a.engine.syncNow() }
        }
        try await a.engine.syncNow()
        for i in stride(from: 0, to: 36, by: 4) { try a.update(notes[i], ["body": .string("edited \(i)")]) }
        for i in stride(from: 3, to: 36, by: 9) { try a.delete(notes[i]) }
        try a.delete(folders[3])
        try await a.engine.syncNow()
        for (i, t) in tags.enumerated() { try a.update(t, ["name": .string("renamed tag \(i)")]) }
        try await a.engine.syncNow()
    }

    /// How many objects of each entity `r` holds.
    static func counts(_ r: TestReplica) throws -> [String: Int] {
        try r.store.read { s in
            var counts: [String: Int] = [:]
            for e in SyncTestModel.entities { counts[e] = try s.fetchIDs(FetchRequest(entity: e)).count }
            return counts
        }
    }

    /// How far the server recorded that `replica` pulled (nil: it has no row).
    static func pulled(_ url: URL, _ scope: String, _ replica: UUID) async throws -> Int64? {
        let c = try await ServerConnection.open(ServerAddress(url))
        defer { c.closeNow() }
        let rows = try await c.run(
            "SELECT pulled FROM cadmium_sync.replicas WHERE scope = \(scope) AND replica = \(replica)", "reading")
        return try rows.first?.decode(Int64.self)
    }
}
