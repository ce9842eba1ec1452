// The store's merge policy: how a commit resolves attributes that another transaction changed
// after this one read them (docs/CADMIUM-API.md §4, "Overlapping transactions").

import CdObjects

extension Cd {
    /// The merge policy of every commit whose transaction context sets none
    /// (``CdManagedObjectContext/mergePolicy``): ``MergePolicy/mergeByPropertyObjectTrump``
    /// until set, as Cadmium on iOS sets it on its contexts. Set it after
    /// `Cd.initWithStore`; it lasts until the store is closed. Reading it before `initWithStore`
    /// answers the default; setting it then is misuse A1.
    ///
    /// ```swift
    /// try Cd.initWithStore(model: model, storeURL: url, serialTX: false)
    /// Cd.mergePolicy = .error   // a conflicting commit fails with 133020, nothing is written
    /// ```
    public static var mergePolicy: MergePolicy {
        get { container?.mergePolicy.withLock { $0 } ?? .mergeByPropertyObjectTrump }
        set {
            guard let container = try? requireContainer("Cd.mergePolicy") else { return }
            container.mergePolicy.withLock { $0 = newValue }
        }
    }
}
