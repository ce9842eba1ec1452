// The engine's background loop (`CdSync.start()`): pushes after local commits (it watches the
// history's last token), pulls when the server announces a change of the scope (LISTEN/NOTIFY on
// channel `cadmium_sync`, the payload being the scope) and on a timer, and backs off while the
// server is away (local writes go on; the next successful sync pushes them).
//
// Invariants:
//  BG1. A failed sync is retried, with a pause that doubles from 100 ms to 5 s, until one
//       succeeds: the local commits it was for stay pending (the loop's last seen token does not
//       move) and the server's loss is reported once per attempt in `events` (`.error`).
//  BG2. Every time the listener (re)connects and its LISTEN is in place, the loop syncs once:
//       announcements sent while nothing listened (the server away, the listener reconnecting)
//       are lost, and that sync catches up on what they announced.
//  BG3. A listener whose connection closed (the server stopped, its backend ended) is given up
//       within a quarter of a second and a new one connects, even when postgres-nio never ends
//       the notification sequence of a closed connection (ServerDeadline.swift tells of such
//       waits): the loop watches `isClosed` rather than awaiting the sequence's end.
//  BG4. `stop()` cancels both loops and closes their connections; every wait in them (the
//       deadline of a sync, a pause, the watch of BG3) answers cancellation, so `stop()` does
//       not wait for a server that is away.
//  BG5. A local commit is pushed without waiting for another trigger even when it lands while a
//       sync runs, too late for that sync's push: after a successful sync the loop moves its mark
//       to the store's last token only when no local transaction is pending (CdSyncStatus's
//       count); otherwise it clears the mark, so the next round syncs again. Reading the last
//       token after the sync alone would take such a commit as seen, and it would wait for the
//       next announcement or the pull timer (an hour in a test that caught it).

import CdObjects
import Foundation
import PostgresNIO
import Synchronization

extension SyncEngine {
    /// Loops until its task is cancelled.
    package func runLoop() async {
        var lastSeen: UInt64? = nil
        var lastSync = ContinuousClock.now
        var backoff: Duration = .milliseconds(100)
        var first = true
        while !Task.isCancelled {
            let local = await lastToken()
            let due =
                first || takeNotification() || local != lastSeen
                || ContinuousClock.now - lastSync >= options.pullInterval
            if due {
                first = false
                do {
                    try await syncNow()
                    await options.afterBackgroundSync?()
                    let after = await lastToken()
                    lastSeen = await hasPendingLocalCommits() ? nil : after  // BG5
                    lastSync = ContinuousClock.now
                    backoff = .milliseconds(100)
                } catch {
                    try? await Task.sleep(for: backoff)
                    backoff = min(backoff * 2, .seconds(5))
                    continue
                }
            }
            try? await Task.sleep(for: options.localPollInterval)
        }
    }

    /// Listens for the server's announcements of the scope until its task is cancelled,
    /// connecting again a second after a failure (BG2, BG3).
    package nonisolated func listenLoop() async {
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(
                    configuration: address.configuration.configuration, id: 0, logger: ServerConnection.logger)
                await setListener(connection)
                let scope = self.scope
                let ended = ListenerEnd()
                let listening = Task {
                    defer { ended.mark() }
                    try await connection.listen(on: "cadmium_sync") { notifications in
                        await self.notify()  // BG2: LISTEN is in place; catch up on what was missed
                        for try await n in notifications where n.payload == scope { await self.notify() }
                    }
                }
                // BG3: the sequence of a closed connection may never end; its connection's state does.
                while !Task.isCancelled, !connection.isClosed, !ended.isMarked {
                    try? await Task.sleep(for: .milliseconds(250))
                }
                listening.cancel()
                if !connection.isClosed { try? await connection.close() }
            } catch {
                // The server is away: try again (BG1's pause is the sync loop's; this one's is fixed).
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// Stops listening (closes the listener's connection) and the server connection.
    package func stopBackground() async {
        try? await listener?.close()
        listener = nil
        await close()
    }

    private func setListener(_ c: PostgresConnection) async {
        try? await listener?.close()
        listener = c
        if Task.isCancelled { try? await c.close() }
    }

    /// The number of the store's last history transaction (on the store queue, SE6).
    private func lastToken() async -> UInt64? {
        let store = self.store
        return (try? await onStore { try store.lastHistoryToken() })?.number
    }

    /// Whether local transactions wait for a push (BG5): the pending count of `status()`, which
    /// reads only the history after the acknowledged position.
    private func hasPendingLocalCommits() async -> Bool {
        ((try? await status())?.pendingTransactions ?? 0) > 0
    }

    private func notify() { notified = true }

    private func takeNotification() -> Bool {
        defer { notified = false }
        return notified
    }
}

/// Whether a listener's task has ended (BG3).
private final class ListenerEnd: Sendable {
    private let value = Mutex(false)
    func mark() { value.withLock { $0 = true } }
    var isMarked: Bool { value.withLock { $0 } }
}
