// The numbers of the history transactions this store wrote, for a layer that tells other
// processes' transactions from its own (the `Cd` layer's remote change events read the history
// after a token and merge only the others'). Off by default: a store nobody asks keeps nothing.
//
// Invariants:
//  OH1. While on, the number of every history transaction this store writes is recorded before
//       its engine commit is written, so before any snapshot (of any process) can show it: a
//       reader that finds a transaction whose number is not recorded here knows another store
//       wrote it.
//  OH2. `take(through:)` forgets the numbers it returns: the set holds only transactions its
//       consumer has not read past, so it stays as small as the commits between two reads.

import CdStore

/// The history transactions this store wrote and its consumer has not read past yet (OH1, OH2).
package final class OwnHistoryNumbers: @unchecked Sendable {
    private let lock = Lock()
    private var on = false
    private var numbers: Set<UInt64> = []

    init() {}

    /// Starts recording (OH1); what was written before is not known.
    package func start() { lock.withLock { on = true } }

    /// Stops recording and forgets what was recorded.
    package func stop() {
        lock.withLock {
            on = false
            numbers = []
        }
    }

    /// Records `number` as written by this store, when on (OH1).
    func record(_ number: UInt64?) {
        guard let number else { return }
        lock.withLock { if on { numbers.insert(number) } }
    }

    /// The recorded numbers up to `last`, forgotten as they are returned (OH2).
    package func take(through last: UInt64) -> Set<UInt64> {
        lock.withLock {
            let taken = numbers.filter { $0 <= last }
            numbers.subtract(taken)
            return taken
        }
    }
}
