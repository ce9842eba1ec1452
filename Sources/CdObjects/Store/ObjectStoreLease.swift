// A lease on an object store open in this process (OpenObjectStores.swift), and the shared entry
// its leases hold. Each user of a store file — the `Cd` API's container, each SwiftData
// `ModelContainer` — holds one lease, announces its commits through it, and hears the commits the
// other leases of the same store announce, so that it can refresh what it holds in memory (the
// engine shows every commit to new snapshots; it is the users' object caches that must learn of
// it).
//
// Invariants:
//  SL1. A lease is released at most once (`release()` and `deinit` both release; the second call
//       does nothing), and its entry's lease count is the number of leases not released.
//  SL2. `announce` reaches every other unreleased lease of the entry that set a commit observer,
//       never the announcing lease itself, and is made after the commit is durable.
//
// Confinement: thread-safe. Observers are called on the announcing thread, outside any lock:
// they must only queue work (the `Cd` container queues a main-queue merge).

import CdStore
import Synchronization

/// One user's hold on a shared object store (SL1, SL2).
package final class ObjectStoreLease: Sendable {
    /// The store, open while this lease is held.
    package var store: ObjectStore { shared.store }
    /// The canonical path of the store's file; nil for a store that is not shared (OO1).
    package var canonicalPath: String? { shared.canonicalPath }
    let shared: SharedObjectStore
    private let released = Atomic<Bool>(false)

    init(shared: SharedObjectStore) { self.shared = shared }

    deinit { try? release() }

    /// Whether another lease on the same store is held now.
    package var isShared: Bool { shared.leaseCount > 1 }

    /// Calls `observer` with each commit another lease of this store announces (SL2).
    package func observeOtherCommits(_ observer: @escaping @Sendable (AppliedChanges) -> Void) {
        shared.setObserver(observer, for: self)
    }

    /// Tells the other leases of this store about a durable commit made through this one (SL2).
    package func announce(_ applied: AppliedChanges) {
        for observer in shared.observers(except: self) { observer(applied) }
    }

    /// Gives the lease back; the store is closed when it was the last lease (OO2, SL1).
    /// - Throws: `CdError.store` when the final checkpoint of the store fails.
    package func release() throws {
        guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        try OpenObjectStores.release(self)
    }
}

/// A store open in this process and its leases (the registry's entry for one file).
final class SharedObjectStore: Sendable {
    let store: ObjectStore
    let canonicalPath: String?
    /// Each unreleased lease, with the observer it set (SL1, SL2).
    private let leases = LockedState<[ObjectIdentifier: (@Sendable (AppliedChanges) -> Void)?]>([:])

    init(store: ObjectStore, canonicalPath: String?) {
        self.store = store
        self.canonicalPath = canonicalPath
    }

    var leaseCount: Int { leases.withLock { $0.count } }

    /// A new lease, counted (SL1).
    func lease() -> ObjectStoreLease {
        let lease = ObjectStoreLease(shared: self)
        leases.withLock { $0[ObjectIdentifier(lease)] = .some(nil) }
        return lease
    }

    /// Removes `lease`; returns how many leases remain.
    func remove(_ lease: ObjectStoreLease) -> Int {
        leases.withLock { leases in
            leases[ObjectIdentifier(lease)] = nil
            return leases.count
        }
    }

    func setObserver(_ observer: @escaping @Sendable (AppliedChanges) -> Void, for lease: ObjectStoreLease) {
        leases.withLock { leases in
            guard leases[ObjectIdentifier(lease)] != nil else { return }
            leases[ObjectIdentifier(lease)] = .some(observer)
        }
    }

    func observers(except lease: ObjectStoreLease) -> [@Sendable (AppliedChanges) -> Void] {
        let own = ObjectIdentifier(lease)
        return leases.withLock { leases in leases.compactMap { $0.key == own ? nil : $0.value } }
    }
}
