// One engine asked to sync by several tasks at once — the background loop and an app's
// `syncNow` calls — runs one step at a time (SE4 of SyncEngine.swift): every call succeeds, the
// replicas converge, and the server never sees two transactions mixed on the engine's one
// connection (PostgreSQL logs a WARNING for a BEGIN inside a transaction, or a COMMIT outside one).

@testable import CadmiumSync
import CdObjects
import CdSyncTesting
import Foundation
import Testing

@Suite("Sync: concurrent steps of one engine") struct ConcurrentStepTests {
    @Test(.timeLimit(.minutes(2))) func syncCallsFromSeveralTasksRunOneAfterTheOther() async throws {
        guard let server = try await PrivateServer.start() else { return }
        defer { server.stop() }
        let set = try ReplicaSet(2, server: server.url, scope: TestServer.scope())
        let a = set[0], b = set[1]
        let front = CdSync(engine: a.engine)
        front.start()
        for round in 0..<5 {
            for i in 0..<4 {
                try a.create("Note", ["title": .string("a \(round)-\(i)")])
                try b.create("Note", ["title": .string("b \(round)-\(i)")])
            }
            try await b.engine.syncNow()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 { group.addTask { try await front.syncNow() } }
                try await group.waitForAll()
            }
        }
        await front.stop()
        try await set.syncAll()
        try set.expectConverged()
        #expect(try a.canonicalState().count == 40)
        let log = (try? String(contentsOfFile: "\(server.dir)/server.log", encoding: .utf8)) ?? ""
        #expect(!log.isEmpty, "no server log at \(server.dir)/server.log")
        for warning in ["there is already a transaction in progress", "there is no transaction in progress"] {
            #expect(!log.contains(warning), "the server logged: \(warning)")
        }
        await set.close()
    }
}
