// The numbers of the history transactions this store wrote, for a layer that tells other
// processes' transactions from its own (the `Cd` layer's remote change events read the history
// after a token and merge only the others'). Off by default: a store nobody asks keeps nothing.
//
// Each consumer (one `Cd` container's remote change watcher; several containers of a process
// share one store, OO1 of OpenObjectStores.swift) keeps its own record, so that one consumer
// reading past a transaction does not make another take it for a foreign one.
//
// Invariants:
//  OH1. While a consumer is registered, the number of every history transaction this store writes
//       is recorded for it before its engine commit is written, so before any snapshot (of any
//       process) can show it: a reader that finds a transaction whose number is not recorded for
//       it knows another store wrote it (or wrote it before the consumer started).
//  OH2. `take(through:for:)` forgets the numbers it returns for that consumer only: each record
//       holds only transactions its consumer has not read past, so it stays as small as the
//       commits between two of its reads.
//  OH3. The records are a short array searched by consumer, not a dictionary keyed by `Consumer`:
//       a process has one consumer per container on the store, and the first dictionary of a new
//       key type makes the Swift runtime search every protocol conformance of the process (about
//       0.1 ms), which the cold open of every shared store paid (`start` runs in it).

import CdStore

/// The history transactions this store wrote that each consumer has not read past yet (OH1, OH2).
package final class OwnHistoryNumbers: @unchecked Sendable {
    /// A registered consumer.
    package struct Consumer: Hashable, Sendable {
        let id: Int
    }

    private let lock = Lock()
    private var nextID = 0
    private var records: [(consumer: Consumer, numbers: Set<UInt64>)] = []  // OH3

    init() {}

    /// Registers a consumer: what is written from now on is recorded for it (OH1); what was
    /// written before is not known.
    package func start() -> Consumer {
        lock.withLock {
            let consumer = Consumer(id: nextID)
            nextID += 1
            records.append((consumer, []))
            return consumer
        }
    }

    /// Unregisters `consumer` and forgets its record.
    package func stop(_ consumer: Consumer) {
        lock.withLock { records.removeAll { $0.consumer == consumer } }
    }

    /// Records `number` as written by this store, for every consumer (OH1).
    func record(_ number: UInt64?) {
        guard let number else { return }
        lock.withLock {
            for index in records.indices { records[index].numbers.insert(number) }
        }
    }

    /// The numbers recorded for `consumer` up to `last`, forgotten as they are returned (OH2).
    package func take(through last: UInt64, for consumer: Consumer) -> Set<UInt64> {
        lock.withLock {
            guard let index = records.firstIndex(where: { $0.consumer == consumer }) else { return [] }
            let taken = records[index].numbers.filter { $0 <= last }
            records[index].numbers.subtract(taken)
            return taken
        }
    }
}
