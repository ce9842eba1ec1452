// The background loop of `CdSync.start()` (not `syncNow`) through a server loss: the test's
// PostgreSQL is stopped (`pg_ctl -m immediate`) under two running replicas and started again.
// Local writes go on while it is away, `events` reports the error, and once it is back both
// replicas converge — with their timers set to an hour, so only pushes of their own and the
// server's announcements (a listener that connects again) can bring them there — without losing
// or duplicating a change; `stop()` returns promptly, also while the server is down, and while a
// push waits on a server whose processes are all stopped (SIGSTOP: connections open, no answer).

@testable import CadmiumSync
import CdObjects
import CdSyncTesting
import Foundation
import Testing

@Suite("Sync: background through a server loss", .serialized) struct BackgroundServerLossTests {
    @Test(.timeLimit(.minutes(2))) func bothReplicasWriteThroughAServerStopAndConvergeWhenItIsBack() async throws {
        guard let server = try await PrivateServer.start() else { return }
        defer { server.stop() }
        var options = SyncEngineOptions.smallPages
        options.pullInterval = .seconds(3600)
        options.serverTimeout = .seconds(3)
        let set = try ReplicaSet(2, server: server.url, scope: TestServer.scope(), options: options)
        let a = set[0], b = set[1]
        let fronts = [CdSync(engine: a.engine), CdSync(engine: b.engine)]
        let events = fronts.map { Self.record($0) }
        for f in fronts { f.start() }
        try a.create("Note", ["title": .string("before a")])
        try b.create("Note", ["title": .string("before b")])
        try await Self.waitUntil("both replicas hold both notes", limit: .seconds(30)) {
            try a.find("Note", "title", "before b").count == 1 && b.find("Note", "title", "before a").count == 1
        }
        try await server.pause()
        // Local writes go on while the server is away, at local speed.
        let started = ContinuousClock.now
        for i in 0..<5 {
            try a.create("Note", ["title": .string("offline a \(i)")])
            try b.create("Note", ["title": .string("offline b \(i)")])
        }
        let before = try #require(try b.find("Note", "title", "before a").first)
        try b.update(before, ["body": .string("edited offline on b")])
        #expect(ContinuousClock.now - started < .seconds(5), "local writes waited for the server")
        // Both loops report the loss.
        for (i, recorded) in events.enumerated() {
            try await Self.waitUntil("replica \(i) reports the server's loss", limit: .seconds(30)) {
                recorded.current.contains { event in
                    if case let .error(e) = event { return e.code == .serverUnreachable }
                    return false
                }
            }
        }
        #expect(try await a.engine.status().pendingTransactions >= 5)
        #expect(try await b.engine.status().lastError?.code == .serverUnreachable)
        try await Task.sleep(for: .seconds(1))
        try await server.resume()
        let back = ContinuousClock.now
        try await Self.waitUntil("the replicas converge after the server is back", limit: .seconds(60)) {
            let (sa, sb) = (try a.canonicalState(), try b.canonicalState())
            let pending = try await a.engine.status().pendingTransactions + b.engine.status().pendingTransactions
            return sa == sb && sa.count == 12 && pending == 0
        }
        print("background sync: converged \(ContinuousClock.now - back) after the server came back")
        // Nothing lost, nothing twice: every note once on both, the edit made offline kept, and
        // the server's objects are the replicas'.
        for r in [a, b] {
            for title in ["before a", "before b"] + (0..<5).flatMap({ ["offline a \($0)", "offline b \($0)"] }) {
                #expect(try r.find("Note", "title", title).count == 1, "\(title)")
            }
        }
        let edited = try #require(try a.find("Note", "title", "before a").first)
        #expect(try a.store.read { try $0.values(of: edited)?["body"] } == .string("edited offline on b"))
        let serverState = try await ServerState.read(server.url, scope: set.scope)
        let wire = try a.store.read {
            try WireState.of($0, schema: SyncSchema(model: a.store.model, entities: SyncTestModel.entities))
        }
        #expect(serverState == wire)
        for f in fronts {
            let stopping = ContinuousClock.now
            await f.stop()
            #expect(ContinuousClock.now - stopping < .seconds(5))
        }
        await set.close()
    }

    @Test(.timeLimit(.minutes(2))) func stopReturnsPromptlyWhileTheServerIsDown() async throws {
        guard let server = try await PrivateServer.start() else { return }
        defer { server.stop() }
        // The default deadline (20 s): stop() must not wait for it.
        let set = try ReplicaSet(1, server: server.url, scope: TestServer.scope())
        let a = set[0]
        let front = CdSync(engine: a.engine)
        let events = Self.record(front)
        front.start()
        try a.create("Note", ["title": .string("online")])
        try await Self.waitUntil("the note is pushed", limit: .seconds(30)) {
            try await a.engine.status().pendingTransactions == 0
        }
        #expect(try await server.waitForListener(), "the background sync never listened")
        try await server.pause()
        // A local write makes the loop push to the stopped server, on its open connection.
        try a.create("Note", ["title": .string("offline")])
        try await Task.sleep(for: .milliseconds(300))
        let stopping = ContinuousClock.now
        await front.stop()
        let took = ContinuousClock.now - stopping
        print("background sync: stop() took \(took) with the server down")
        #expect(took < .seconds(5), "stop() waited for the server")
        #expect(try await a.engine.status().pendingTransactions == 1)
        #expect(events.current.contains { if case .pushed = $0 { return true } else { return false } })
        await set.close()
    }

    @Test(.timeLimit(.minutes(2))) func stopReturnsPromptlyWhileAPushWaitsOnAFrozenServer() async throws {
        guard let server = try await PrivateServer.start() else { return }
        defer { server.stop() }
        let set = try ReplicaSet(1, server: server.url, scope: TestServer.scope())
        let a = set[0]
        let front = CdSync(engine: a.engine)
        front.start()
        try a.create("Note", ["title": .string("online")])
        try await Self.waitUntil("the note is pushed", limit: .seconds(30)) {
            try await a.engine.status().pendingTransactions == 0
        }
        // Every process of the server stopped (SIGSTOP): connections stay open, nothing answers;
        // the loop's push of the next commit waits on its 20-second deadline.
        let frozen = try server.freeze()
        defer { PrivateServer.thaw(frozen) }
        try a.create("Note", ["title": .string("offline")])
        try await Task.sleep(for: .milliseconds(500))
        let stopping = ContinuousClock.now
        await front.stop()
        let took = ContinuousClock.now - stopping
        print("background sync: stop() took \(took) while a push waited on a frozen server")
        #expect(took < .seconds(5), "stop() waited for the frozen server")
        PrivateServer.thaw(frozen)
        await set.close()
    }

    // MARK: - Helpers

    /// Records the events of `front` from now on, until it stops.
    static func record(_ front: CdSync) -> Recorded<[CdSyncEvent]> {
        let recorded = Recorded<[CdSyncEvent]>([])
        let stream = front.events
        Task {
            for await event in stream { recorded.update { $0.append(event) } }
        }
        return recorded
    }

    /// Polls `condition` every 50 ms until it holds; records an issue naming `what` after `limit`.
    static func waitUntil(
        _ what: String, limit: Duration, sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: () async throws -> Bool
    ) async throws {
        let end = ContinuousClock.now + limit
        while ContinuousClock.now < end {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("not within \(limit): \(what)", sourceLocation: sourceLocation)
        throw SyncTestFailure("not within \(limit): \(what)")
    }
}
