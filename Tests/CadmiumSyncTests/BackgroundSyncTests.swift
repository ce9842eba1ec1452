// The background sync of `CdSync.start()`: a replica pulls when the server announces another
// replica's push (LISTEN/NOTIFY — its timer is set to an hour, so nothing else can make it pull),
// pushes its own commits without being asked, reports both in `events`, and `stop()` ends the
// event sequences.

@testable import CadmiumSync
import CdObjects
import CdSyncTesting
import Foundation
import Testing

@Suite("Sync: background") struct BackgroundSyncTests {
    @Test(.timeLimit(.minutes(1))) func startPullsOnTheServersAnnouncementAndPushesLocalCommits() async throws {
        guard let server = try await PrivateServer.start() else { return }
        defer { server.stop() }
        var options = SyncEngineOptions()
        options.pullInterval = .seconds(3600)
        let set = try ReplicaSet(2, server: server.url, scope: TestServer.scope(), options: options)
        let a = set[0], b = set[1]
        let sync = CdSync(engine: b.engine)
        try await sync.syncNow()
        var events = sync.events.makeAsyncIterator()
        sync.start()
        #expect(try await server.waitForListener(), "the background sync never listened")
        // The loop's first sync pulls once (every sync does, even when nothing changed).
        while let event = await events.next() {
            if case .pulled = event { break }
        }
        // A push of a's: b hears of it and pulls.
        let started = ContinuousClock.now
        try a.create("Note", ["title": .string("from a")])
        try await a.engine.syncNow()
        var pulled = false
        while !pulled, let event = await events.next() {
            if case .pulled = event { pulled = try !b.find("Note", "title", "from a").isEmpty }
        }
        #expect(pulled, "b never pulled a's note")
        print("background sync: a commit on a visible on b after \(ContinuousClock.now - started) (LISTEN/NOTIFY)")
        // A commit of b's is pushed without a call.
        try b.create("Note", ["title": .string("from b")])
        var pushed = false
        while !pushed, let event = await events.next() {
            if case .pushed = event { pushed = true }
        }
        #expect(pushed, "b's commit was not pushed")
        try await a.engine.syncNow()
        #expect(try a.find("Note", "title", "from b").count == 1)
        // stop() ends the sequence (after what it buffered).
        await sync.stop()
        while await events.next() != nil {}
        #expect(try await b.engine.status().pendingTransactions == 0)
        await set.close()
    }
}
