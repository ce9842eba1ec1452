// The server lost under open connections: a backend ended by `pg_terminate_backend`, a server
// stopped (`pg_ctl -m immediate`) and started again. Each sync after the loss ends within its
// deadline with `serverUnreachable`, local writes go on, and the first sync after the server is
// back pushes them and converges. Each test has a time limit, so that a wait that never ends
// fails instead of hanging the suite.

@testable import CadmiumSync
import CdObjects
import CdSyncTesting
import Foundation
import Testing

@Suite("Sync: server lost under open connections", .serialized) struct ServerLossTests {
    @Test(.timeLimit(.minutes(1))) func aTerminatedBackendFailsAtMostOneSyncAndTheNextSucceeds() async throws {
        guard let server = try await PrivateServer.start() else { return }
        defer { server.stop() }
        let set = try ReplicaSet(2, server: server.url, scope: TestServer.scope())
        let a = set[0], b = set[1]
        try a.create("Note", ["title": .string("before")])
        try await set.syncAll()
        // Every backend but the killer's own ends: a's and b's open connections.
        try await server.terminateClientBackends()
        try a.create("Note", ["title": .string("after")])
        try await syncUntilSuccess(a, attempts: 3)
        try await syncUntilSuccess(b, attempts: 3)
        #expect(try b.find("Note", "title", "after").count == 1)
        try set.expectConverged()
        await set.close()
    }

    @Test(.timeLimit(.minutes(1))) func aServerStoppedAndStartedAgainUnderOpenConnections() async throws {
        guard let server = try await PrivateServer.start() else { return }
        defer { server.stop() }
        var options = SyncEngineOptions()
        options.serverTimeout = .seconds(5)
        let set = try ReplicaSet(2, server: server.url, scope: TestServer.scope(), options: options)
        let a = set[0], b = set[1]
        try a.create("Note", ["title": .string("before")])
        try await set.syncAll()
        try await server.pause()
        // The server is away: local writes go on, a sync fails with a typed error in bounded time.
        try a.create("Note", ["title": .string("offline")])
        let started = ContinuousClock.now
        await #expect(throws: CdSyncError.self) { try await a.engine.syncNow() }
        #expect(ContinuousClock.now - started < .seconds(15), "a sync against a stopped server took too long")
        #expect(try await a.engine.status().pendingTransactions >= 1)
        try await server.resume()
        try await syncUntilSuccess(a, attempts: 3)
        try await syncUntilSuccess(b, attempts: 3)
        #expect(try b.find("Note", "title", "offline").count == 1)
        #expect(try await a.engine.status().pendingTransactions == 0)
        try set.expectConverged()
        await set.close()
    }

    @Test(.timeLimit(.minutes(1))) func aQueryOnAConnectionTheServerClosedEndsWithinTheDeadline() async throws {
        guard let server = try await PrivateServer.start() else { return }
        defer { server.stop() }
        let connection = try await ServerConnection.open(ServerAddress(server.url))
        try await server.terminateClientBackends()
        for _ in 0..<200 where !connection.isClosed { try await Task.sleep(for: .milliseconds(10)) }
        #expect(connection.isClosed, "the connection did not notice that the server ended its backend")
        // postgres-nio 1.33 never answers this query (ServerDeadline.swift); the deadline does.
        let started = ContinuousClock.now
        do {
            _ = try await withServerDeadline(
                .seconds(2), "a query on a closed connection", onTimeout: connection.closeNow
            ) {
                try await connection.run("SELECT 1", "selecting one")
            }
            Issue.record("a query on a connection the server closed succeeded")
        } catch let e as CdSyncError {
            // Which of the two ended it (the deadline, or postgres-nio's own error) is printed.
            print("a query on a closed connection: \(e)")
            #expect(e.code == .serverUnreachable)
        }
        #expect(ContinuousClock.now - started < .seconds(20))
        await connection.close()
    }

    /// Syncs `replica`, retrying at most `attempts` times while the error is `serverUnreachable`.
    private func syncUntilSuccess(_ replica: TestReplica, attempts: Int) async throws {
        for attempt in 1...attempts {
            do {
                try await replica.engine.syncNow()
                return
            } catch let e as CdSyncError where e.code == .serverUnreachable && attempt < attempts {
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }
}
