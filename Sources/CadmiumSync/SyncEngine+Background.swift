// The engine's background loop (`CdSync.start()`): pushes after local commits (it watches the
// history's last token), pulls when the server announces a change of the scope (LISTEN/NOTIFY on
// channel `cadmium_sync`, the payload being the scope) and on a timer, and backs off while the
// server is away (local writes go on; the next successful sync pushes them).

import CdObjects
import Foundation
import PostgresNIO

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
                    lastSeen = await lastToken()
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
    /// reconnecting after a second when the connection fails.
    package nonisolated func listenLoop() async {
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(
                    configuration: address.configuration.configuration, id: 0, logger: ServerConnection.logger)
                await setListener(connection)
                try await connection.listen(on: "cadmium_sync") { notifications in
                    for try await n in notifications where n.payload == scope { await notify() }
                }
                try? await connection.close()
            } catch {
                try? await Task.sleep(for: .seconds(1))
            }
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

    private func notify() { notified = true }

    private func takeNotification() -> Bool {
        defer { notified = false }
        return notified
    }
}
