// The transaction bodies running on a container, so that `Cd.close()` can stop new ones and wait for
// the running ones before it closes the store.
//
// Invariants:
//  MG1. Once `closeAndWait` has begun, `enter` admits no transaction or read: every body that runs on
//       the container entered before, and `closeAndWait` returns only after each of them left.
//
// Confinement: thread-safe (one condition variable guards the count and the flag).

import Foundation

/// A count of running transaction bodies and a closed flag, behind a condition variable.
final class RunningTransactions: @unchecked Sendable {
    // @unchecked: `count` and `closed` are only touched with `condition` locked.
    private let condition = NSCondition()
    private var count = 0
    private var closed = false

    /// Admits one transaction body; false once the container is closing (keeps MG1).
    func enter() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return false }
        count += 1
        return true
    }

    /// The body admitted by `enter` has finished (its commit included).
    func leave() {
        condition.lock()
        count -= 1
        if count == 0 { condition.broadcast() }
        condition.unlock()
    }

    /// Admits no more bodies and waits until every running one has left (keeps MG1).
    func closeAndWait() {
        condition.lock()
        closed = true
        while count > 0 { condition.wait() }
        condition.unlock()
    }
}
