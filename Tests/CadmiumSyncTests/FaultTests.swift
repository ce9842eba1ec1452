// The server away: local writes go on, sync fails with `serverUnreachable` naming the server, and
// the writes stay pending. (A server stopped under open connections, and connections cut by
// pg_terminate_backend: ServerLossTests.swift.)

@testable import CadmiumSync
import CdObjects
import CdSyncTesting
import Foundation
import Testing

@Suite("Sync: faults") struct FaultTests {
    @Test func anUnreachableServerIsATypedErrorNamingIt() async throws {
        let dir = try TestServer.temporaryDirectory("unreachable")
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = URL(string: "postgres://cadmium@localhost:5432/cadmium?host=\(dir.path)")!
        let r = try TestReplica(path: dir.appendingPathComponent("a.cdstore").path, server: url, scope: "s")
        try r.create("Note", ["title": .string("local")])
        do {
            try await r.engine.syncNow()
            Issue.record("a sync without a server succeeded")
        } catch let e as CdSyncError {
            #expect(e.code == .serverUnreachable)
            #expect(e.message.contains(dir.path))
        }
        #expect(try r.canonicalState().count == 1)  // its global ID was recorded before the send (PC3)
        #expect(try await r.engine.status().pendingTransactions == 1)
        try await r.close()
    }
}
