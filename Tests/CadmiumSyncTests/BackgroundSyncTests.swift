// The background sync of `CdSync.start()`: a replica pulls when the server announces another
// replica's push (LISTEN/NOTIFY — its timer is set to an hour, so nothing else can make it pull),
// pushes its own commits without being asked, reports both in `events`, and `stop()` ends the
// event sequences.

@testable import CadmiumSync
import CdObjects
import CdSyncTesting
import Foundation
import Synchronization
import Testing

/// Two replicas on `server` whose pull timer is set to an hour: only the server's announcements
/// and local commits make their background loops sync.
private func announcementsOnlyPair(_ server: PrivateServer) throws -> ReplicaSet {
    var options = SyncEngineOptions()
    options.pullInterval = .seconds(3600)
    return try ReplicaSet(2, server: server.url, scope: TestServer.scope(), options: options)
}

@Suite("Sync: background") struct BackgroundSyncTests {
    @Test(.timeLimit(.minutes(1))) func startPullsOnTheServersAnnouncementAndPushesLocalCommits() async throws {
        guard let server = try await PrivateServer.start() else { return }
        defer { server.stop() }
        let set = try announcementsOnlyPair(server)
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

/// BG5 of SyncEngine+Background.swift: a local commit that lands after a background sync's push
/// (made by the hook that runs right after the sync, before the loop looks at the store) is pushed
/// in the next round, with no announcement and no timer to wake the loop.
@Suite("Sync: background, a commit as a sync ends") struct BackgroundCommitDuringSyncTests {
    @Test(.timeLimit(.minutes(1))) func aCommitMadeAsASyncEndsIsPushedWithoutAnotherTrigger() async throws {
        guard let server = try await PrivateServer.start() else { return }
        defer { server.stop() }
        let set = try announcementsOnlyPair(server)
        let a = set[0], b = set[1]
        // The hook commits once, at the end of the sync that pulled a's note: the one that a's
        // announcement started. After it nothing wakes the loop but its own look at the store.
        let made = Mutex(false)
        var options = await b.engine.options
        options.afterBackgroundSync = {
            guard (try? b.find("Note", "title", "from a").isEmpty) == false else { return }
            guard
                made.withLock({ done in
                    defer { done = true }; return !done
                })
            else { return }
            _ = try? b.create("Note", ["title": .string("as the sync ended")])
        }
        await b.engine.setOptions(options)
        let sync = CdSync(engine: b.engine)
        try await sync.syncNow()
        var events = sync.events.makeAsyncIterator()
        sync.start()
        #expect(try await server.waitForListener(), "the background sync never listened")
        // Let the loop's first sync and the listener's catch-up sync (BG2) end.
        try await Task.sleep(for: .seconds(1))
        try a.create("Note", ["title": .string("from a")])
        try await a.engine.syncNow()
        var pushedNote = false
        while !pushedNote, let event = await events.next() {
            if case .pushed = event, made.withLock({ $0 }) {
                pushedNote = try await b.engine.status().pendingTransactions == 0
            }
        }
        #expect(pushedNote, "the note committed as the sync ended was never pushed")
        try await a.engine.syncNow()
        #expect(try a.find("Note", "title", "as the sync ended").count == 1)
        await sync.stop()
        while await events.next() != nil {}
        await set.close()
    }
}
