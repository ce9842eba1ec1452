// The one thread per process that polls every RemoteChangeWatcher of the process.
//
// Why a thread of its own, and one for all containers: a watcher is made by every open of a
// store other processes may share. A Dispatch timer per watcher made libdispatch start two
// threads (its timer manager and a worker) inside the cold open of a fresh process, about 0.1 ms
// of it; one plain thread serves every watcher of the process, and it is made by the first
// watcher that joins, on the main queue after the open (RM4 of RemoteChangeWatcher.swift), so
// an open makes no thread at all.
//
// Invariants:
//  RP1. At most one polling thread per process. It is started by the first `add` and never
//       exits; with no watcher registered it sleeps on the condition and takes no wake-ups.
//  RP2. Each round polls every watcher registered when the round began (`tick`), then sleeps
//       `RemoteChangeWatcher.intervalSeconds`. A watcher is held weakly: one dropped without `stop`
//       is no longer polled.
//  RP3. `remove` only takes a watcher out of later rounds; the watcher's own lock makes a `tick`
//       in progress finish before its `stop` returns, and a `tick` after `stop` does nothing
//       (RM3 of RemoteChangeWatcher.swift).

import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Polls every watcher of the process on one thread (RP1–RP3).
final class RemoteChangePoller: @unchecked Sendable {
    // @unchecked: `entries` and `started` are touched with `condition` locked only.
    static let shared = RemoteChangePoller()

    private struct Entry {
        weak var watcher: RemoteChangeWatcher?
    }

    private let condition = NSCondition()
    private var entries: [ObjectIdentifier: Entry] = [:]
    private var started = false
    private var threadsMade = 0

    private init() {}

    /// How many polling threads this process made (RP1: 0 or 1).
    var threadsStarted: Int {
        condition.lock()
        defer { condition.unlock() }
        return threadsMade
    }

    /// Whether `watcher` is in the rounds now.
    func isPolling(_ watcher: RemoteChangeWatcher) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return entries[ObjectIdentifier(watcher)]?.watcher === watcher
    }

    /// Polls `watcher` from the next round on, starting the thread on first use (RP1).
    func add(_ watcher: RemoteChangeWatcher) {
        condition.lock()
        defer { condition.unlock() }
        entries[ObjectIdentifier(watcher)] = Entry(watcher: watcher)
        if !started {
            started = Self.startThread()
            if started { threadsMade += 1 }
            if !started {
                // No thread could be made (the process is out of them): poll on a Dispatch queue
                // instead, so that the watcher still works.
                DispatchQueue.global(qos: .utility).async { RemoteChangePoller.shared.run() }
                started = true
            }
        }
        condition.signal()
    }

    /// Leaves `watcher` out of later rounds (RP3).
    func remove(_ watcher: RemoteChangeWatcher) {
        condition.lock()
        entries[ObjectIdentifier(watcher)] = nil
        condition.unlock()
    }

    private static func startThread() -> Bool {
        var thread = pthread_t()
        let made = pthread_create(
            &thread, nil,
            { _ in
                RemoteChangePoller.shared.run()
                return nil
            }, nil)
        guard made == 0 else { return false }
        pthread_detach(thread)
        return true
    }

    /// The polling loop (RP1, RP2); never returns.
    private func run() {
        let interval = RemoteChangeWatcher.intervalSeconds
        condition.lock()
        while true {
            if entries.isEmpty {
                condition.wait()
                continue
            }
            _ = condition.wait(until: Date(timeIntervalSinceNow: interval))
            let round = entries.values.compactMap(\.watcher)
            if round.count < entries.count { entries = entries.filter { $0.value.watcher != nil } }
            condition.unlock()
            for watcher in round { watcher.tick() }
            condition.lock()
        }
    }
}
