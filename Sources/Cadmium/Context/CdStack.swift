// The stack made by `Cd.initWithStore`: the object store, the root save context that owns its
// writer, the main context, and the serial transaction queue.
//
// Confinement: immutable after init except `contextCounter` (locked); thread-safe.

import Foundation
import CdObjects
import CdStore

final class CdStack: @unchecked Sendable {
    // @unchecked: the lets are set once in init; `contextCounter` and `saveLock` are locks.
    let model: CdModel
    let store: any StoreBackend
    private(set) var root: CdManagedObjectContext!
    private(set) var main: CdManagedObjectContext!
    /// Cadmium's internal serial transaction queue.
    let serialQueue = DispatchQueue(label: "org.cadmium.linux.serialTransactions")
    private let contextCounter = LockedState(0)
    /// Orders commits with their merges into the main context.
    private let saveLock = Lock()

    init(model: CdModel, store: any StoreBackend) {
        self.model = model
        self.store = store
        root = CdManagedObjectContext(kind: .root, stack: self, number: 0)
        main = CdManagedObjectContext(kind: .main, stack: self, number: 0)
    }

    /// A fresh context for one transaction body, a child of the root.
    func newTransactionContext() -> CdManagedObjectContext {
        let number = contextCounter.withLock { value -> Int in
            value += 1; return value
        }
        return CdManagedObjectContext(kind: .transaction, stack: self, number: number)
    }

    /// The root context's save: applies `changes` in one store transaction (durable when this
    /// returns) and schedules the merge into the main context on the main queue.
    func save(_ changes: ChangeSet) throws -> AppliedChanges {
        try saveLock.withLock {
            let applied = try store.apply(changes)
            let main = self.main!
            DispatchQueue.main.async { main.merge(changes, applied) }
            return applied
        }
    }
}
