// The plan of a backlog (PushPlan.swift, PP1–PP3): its batches are cut once, and a batch is taken
// from it only while no transaction committed since the plan was read touches that batch's
// objects. Local only: no server.

@testable import CadmiumSync
import CdObjects
import CdSyncTesting
import Foundation
import Testing

@Suite("Sync: the plan of a push backlog") struct PushPlanTests {
    /// A store of the test model with history, its engine never connecting.
    static func replica() throws -> (TestReplica, URL) {
        let dir = try TestServer.temporaryDirectory("plan")
        let r = try TestReplica(
            path: dir.appendingPathComponent("r.cdstore").path,
            server: URL(string: "postgres://nobody@127.0.0.1:1/none")!, scope: "plan")
        return (r, dir)
    }

    static func position(_ store: ObjectStore, _ number: UInt64) -> PushedPosition {
        PushedPosition(historyID: store.historyID!, number: number, stamp: 0, batches: 0)
    }

    @Test func aPlanHoldsUntilALaterCommitTouchesItsNextBatch() throws {
        let (r, dir) = try Self.replica()
        defer {
            try? r.store.close()
            try? FileManager.default.removeItem(at: dir)
        }
        let schema = try SyncSchema(model: r.store.model, entities: SyncTestModel.entities)
        let first = try r.create("Note", ["title": .string("first")])
        try PushBatchTests.backlog(r, "n", 9)  // 10 transactions: batches of 5 and 5
        let pending = try r.store.history(after: nil)
        let start = pending.first!.token.number - 1
        let plan = PushPlan(
            historyID: r.store.historyID!, after: start, pending: pending,
            limit: PushBatchLimit(transactions: 5, changes: 1000), schema: schema)
        #expect(plan.batches.map(\.transactions.count) == [5, 5])
        let rest = try #require(plan.advanced())
        let done = pending[4].token.number
        #expect(rest.advanced() == nil)
        #expect(try r.store.read { try rest.next($0, pushed: Self.position(r.store, done), schema: schema) } != nil)
        // Not from another position (PP2).
        #expect(try r.store.read { try rest.next($0, pushed: Self.position(r.store, start), schema: schema) } == nil)

        // A later commit of an object of the acknowledged batch only: the next batch still holds.
        try r.update(first, ["title": .string("first, edited")])
        let next = try r.store.read { try rest.next($0, pushed: Self.position(r.store, done), schema: schema) }
        #expect(next?.transactions.map(\.token) == pending[5...].map(\.token))

        // A later commit of an object of the next batch: the plan is dropped (PP3).
        let inNext = try #require(try r.find("Note", "title", "n 7.0").first)
        try r.update(inNext, ["title": .string("n 7.0, edited")])
        #expect(try r.store.read { try rest.next($0, pushed: Self.position(r.store, done), schema: schema) } == nil)
    }
}
