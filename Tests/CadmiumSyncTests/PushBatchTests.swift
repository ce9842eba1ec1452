// A backlog of local transactions pushed in several batches (PB1–PB4 of PushBatchSplit.swift):
// each batch whole transactions, cut only where none of its objects changes again, each applied
// exactly once by the server's compare-and-set, the backlog arriving whole.

@testable import CadmiumSync
import CdObjects
import CdSyncTesting
import Foundation
import Testing

@Suite("Sync: pushes in batches") struct PushBatchTests {
    /// Options whose batches close after 5 transactions (or 1,000 changes).
    static func fiveTransactions(duplicates: Bool = false) -> SyncEngineOptions {
        var o = SyncEngineOptions.smallPages
        o.pushBatchLimit = PushBatchLimit(transactions: 5, changes: 1000)
        o.duplicatePushes = duplicates
        return o
    }

    /// Commits `count` local transactions of two new notes each, titled "<prefix> <i>.<0|1>".
    static func backlog(_ r: TestReplica, _ prefix: String, _ count: Int) throws {
        for i in 0..<count {
            let ids = try r.store.newObjectIDs(entity: "Note", count: 2)
            try r.store.apply(
                ChangeSet(inserted: [
                    ids[0]: ["title": .string("\(prefix) \(i).0")], ids[1]: ["title": .string("\(prefix) \(i).1")],
                ]))
        }
    }

    /// The change numbers of the scope's objects on the server: one per batch that wrote them.
    static func changeNumbers(_ server: URL, _ scope: String) async throws -> Set<Int64> {
        let c = try await ServerConnection.open(ServerAddress(server))
        defer { c.closeNow() }
        let rows = try await c.run("SELECT seq FROM cadmium_sync.objects WHERE scope = \(scope)", "reading seqs")
        return Set(try rows.map { try $0.decode(Int64.self) })
    }

    @Test(.timeLimit(.minutes(1))) func backlogLargerThanOneBatchArrivesWholeInSeveralBatches() async throws {
        guard let server = TestServer.url() else { return }
        // Every batch also sent twice: the server must refuse each replay (PU1, per batch).
        let set = try ReplicaSet(
            server: server, scope: TestServer.scope(), options: [Self.fiveTransactions(duplicates: true), .smallPages])
        defer { Task { await set.close() } }
        let a = set[0], b = set[1]
        try await a.engine.syncNow()  // a position to push after (the first push is the state, PC4)
        let before = try await a.engine.status().acknowledgedBatches
        try Self.backlog(a, "n", 23)
        #expect(try await a.engine.status().pendingTransactions == 23)
        try await a.engine.syncNow()
        let status = try await a.engine.status()
        #expect(status.pendingTransactions == 0)
        #expect(status.acknowledgedBatches - before == 5, "23 transactions in batches of 5: 5 batches")
        #expect(try await Self.changeNumbers(server, set.scope).count == 5)
        try await b.engine.syncNow()
        #expect(try b.store.read { try $0.fetchIDs(FetchRequest(entity: "Note")) }.count == 46)
        for i in [0, 11, 22] { #expect(try b.find("Note", "title", "n \(i).1").count == 1) }
        try set.expectConverged()
    }

    @Test(.timeLimit(.minutes(1))) func batchStaysOpenWhileItsObjectsChangeAgain() async throws {
        guard let server = TestServer.url() else { return }
        let set = try ReplicaSet(server: server, scope: TestServer.scope(), options: [Self.fiveTransactions()])
        defer { Task { await set.close() } }
        let a = set[0]
        try await a.engine.syncNow()
        let before = try await a.engine.status().acknowledgedBatches
        // A note created and then edited in 7 transactions (each also creating another note),
        // then 4 transactions of new notes: the first batch cannot end before the last edit
        // (PB2), so 8 + 4 transactions make 2 batches, not 5 + 5 + 2.
        let hot = try a.create("Note", ["title": .string("edit 0")])
        for i in 1...7 {
            let other = try a.store.newObjectIDs(entity: "Note", count: 1)[0]
            try a.store.apply(
                ChangeSet(
                    inserted: [other: ["title": .string("beside \(i)")]],
                    updated: [hot: ["title": .string("edit \(i)")]]))
        }
        try Self.backlog(a, "after", 4)
        try await a.engine.syncNow()
        #expect(try await a.engine.status().acknowledgedBatches - before == 2, "8 + 4 transactions")
        let late = try TestReplica(
            path: set.dir.appendingPathComponent("late.cdstore").path, server: server, scope: set.scope)
        try await late.engine.syncNow()
        #expect(try late.find("Note", "title", "edit 7").count == 1)
        #expect(try late.canonicalState() == a.canonicalState())
        try await late.close()
    }

    @Test(.timeLimit(.minutes(1))) func crashAfterTheServerCommittedOneBatchLosesAndRepeatsNothing() async throws {
        guard let server = TestServer.url() else { return }
        let set = try ReplicaSet(
            server: server, scope: TestServer.scope(), options: [Self.fiveTransactions(), .smallPages])
        defer { Task { await set.close() } }
        let a = set[0], b = set[1]
        try await a.engine.syncNow()
        let before = try await a.engine.status().acknowledgedBatches
        try Self.backlog(a, "n", 12)
        // The first batch reaches the server, and the replica stops before acknowledging it.
        var failing = Self.fiveTransactions()
        failing.failAfterServerCommit = true
        await a.engine.setOptions(failing)
        await #expect(throws: CdSyncError.self) { try await a.engine.syncNow() }
        #expect(try await a.engine.status().acknowledgedBatches == before)
        // The next sync adopts the server's position (SE2) and pushes the two batches after it.
        await a.engine.setOptions(Self.fiveTransactions())
        try await a.engine.syncNow()
        #expect(try await a.engine.status().acknowledgedBatches - before == 3)
        #expect(try await Self.changeNumbers(server, set.scope).count == 3)
        try await b.engine.syncNow()
        #expect(try b.store.read { try $0.fetchIDs(FetchRequest(entity: "Note")) }.count == 24)
        try set.expectConverged()
    }

    /// One local transaction of 300 new notes is one batch (PB1). With the server slow to answer
    /// (4 s before the batch goes out), its push outlasts a 3 s `serverTimeout`: under that
    /// deadline alone it fails at every attempt, and with the allowance per operation (SE5 of
    /// SyncEngine.swift; 100 ms here, 30 s more for 300 objects) it arrives whole.
    @Test(.timeLimit(.minutes(2))) func aBatchTooLargeForOneDeadlineArrivesUnderItsPerOperationAllowance() async throws
    {
        guard let server = TestServer.url() else { return }
        let set = try ReplicaSet(
            server: server, scope: TestServer.scope(), options: [SyncEngineOptions(), SyncEngineOptions()])
        defer { Task { await set.close() } }
        let a = set[0], b = set[1]
        try await a.engine.syncNow()  // a position to push after (PC4)
        let ids = try a.store.newObjectIDs(entity: "Note", count: 300)
        try a.store.apply(
            ChangeSet(
                inserted: Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, ["title": .string("n \($0)")]) })
            ))
        var slow = SyncEngineOptions()
        slow.serverTimeout = .seconds(3)
        slow.beforePushSend = { try await Task.sleep(for: .seconds(4)) }
        slow.serverTimeoutPerOperation = .zero
        await a.engine.setOptions(slow)
        await #expect {
            try await a.engine.syncNow()
        } throws: { error in
            guard let e = error as? CdSyncError, e.code == .serverUnreachable else { return false }
            return e.message.contains("pushing 300 objects took over 3")
        }
        #expect(try await a.engine.status().pendingTransactions == 1)
        // Connected again under the default deadline, so that only the push meets the short one
        // (a connection on a loaded machine can take seconds), and pushed without a pull.
        await a.engine.setOptions(SyncEngineOptions())
        _ = try await a.engine.connection()
        slow.serverTimeoutPerOperation = .milliseconds(100)
        #expect(slow.pushTimeout(operations: 300) == .seconds(33))
        await a.engine.setOptions(slow)
        #expect(try await a.engine.pushAll() == 1)
        await a.engine.setOptions(SyncEngineOptions())
        try await a.engine.syncNow()
        #expect(try await a.engine.status().pendingTransactions == 0)
        try await b.engine.syncNow()
        #expect(try b.store.read { try $0.fetchIDs(FetchRequest(entity: "Note")) }.count == 300)
        try set.expectConverged()
    }

    /// A backlog of 40 transactions in batches of 5 is read from the history once (PB5), not
    /// once per batch (40 + 35 + … + 5 = 180 transactions before the plan).
    @Test(.timeLimit(.minutes(1))) func aBacklogIsReadFromTheHistoryOnce() async throws {
        guard let server = TestServer.url() else { return }
        let set = try ReplicaSet(server: server, scope: TestServer.scope(), options: [Self.fiveTransactions()])
        defer { Task { await set.close() } }
        let a = set[0]
        try await a.engine.syncNow()
        let before = try await a.engine.status().acknowledgedBatches
        let readBefore = await a.engine.pushHistoryReads
        try Self.backlog(a, "n", 40)
        try await a.engine.syncNow()
        #expect(try await a.engine.status().acknowledgedBatches - before == 8)
        #expect(await a.engine.pushHistoryReads - readBefore == 40)
        #expect(try await a.engine.status().pendingTransactions == 0)
    }
}
