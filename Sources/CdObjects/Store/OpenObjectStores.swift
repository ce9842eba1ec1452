// The object stores open in this process, by file: whoever opens a store file (`Cd.initWithStore`,
// a `CdContainer`, SwiftData's `ModelContainer`) gets a lease on the one `ObjectStore` the process
// has open for that file, and the last lease to go closes it. The engine locks a store file once
// per process (its writer and shared-memory coordination belong to one `Store`), so a second
// `ObjectStore.open` of an open file would fail on the process's own lock, or, if it did not, act
// as a second process with its own caches; sharing the store is what one process must do.
//
// Invariants:
//  OO1. At most one `ObjectStore` is open per canonical file path in the process: `acquire` opens a
//       file only when the registry has no entry for its canonical path, and adds the entry under
//       the same lock; in-memory stores are never shared (each `acquire(path: nil)` opens its own),
//       nor are stores on a file system other than the machine's (`StoreOptions.fileSystem` not a
//       `POSIXFileSystem`: a test's in-memory or fault-injecting files are its own).
//  OO2. An entry's store stays open while it has a lease, and is closed when its last lease is
//       released, under the registry's lock, after the entry was removed: a later `acquire` of
//       the file never meets a store that is closing, nor the file's lock held by it.
//  OO3. Every lease of an entry has the same model version: `acquire` with another model's
//       version hash throws `CdError.incompatibleModel` naming the file, and neither opens,
//       migrates nor writes the store (a migration needs the file to itself).
//  OO4. A lease that asks for persistent history gets a store that records it: joining a store
//       opened without history starts it (HS6: once started, every commit is recorded).
//
// Confinement: thread-safe (one lock guards the registry; each entry guards its leases).

import CdStore
import Foundation

/// The process's registry of open object stores, keyed by canonical file path (OO1–OO4).
///
/// ```swift
/// let lease = try OpenObjectStores.acquire(path: url.path, model: model, options: StoreOptions())
/// defer { try? lease.release() }
/// try lease.store.read { … }
/// ```
package enum OpenObjectStores {
    private static let open = LockedState<[String: SharedObjectStore]>([:])

    /// A lease on the store at `path` (nil: a new in-memory store of its own; a store on another
    /// file system than the machine's is not shared either, OO1): the store this
    /// process has open for the file, or the file opened now with `options` and `migration`.
    /// A store already open keeps the options it was opened with (page size, durability).
    ///
    /// - Throws: `CdError.incompatibleModel` when the file is open in this process with another
    ///   model version (OO3); the errors of ``ObjectStore/open(path:model:options:migration:)``.
    package static func acquire(
        path: String?, model: ObjectModel, options: StoreOptions = StoreOptions(),
        migration: MigrationOptions = MigrationOptions(isEnabled: false)
    ) throws -> ObjectStoreLease {
        guard let path, options.fileSystem is POSIXFileSystem else {
            let store = try ObjectStore.open(path: path, model: model, options: options, migration: migration)
            return SharedObjectStore(store: store, canonicalPath: nil).lease()
        }
        let canonical = canonicalPath(path)
        let shared = try open.withLock { stores -> SharedObjectStore in
            if let existing = stores[canonical] {
                guard existing.store.model.versionHash == model.versionHash else {
                    let difference = model.firstStoredShapeDifference(from: existing.store.model)
                    throw CdError.incompatibleModel(
                        storeVersionHash: existing.store.model.versionHash, modelVersionHash: model.versionHash,
                        difference: "\(canonical) is open in this process with another model version"
                            + (difference.map { " (\($0))" } ?? "")
                            + "; close every container on the file before opening it with this model")
                }
                return existing
            }
            let store = try ObjectStore.open(path: path, model: model, options: options, migration: migration)
            let shared = SharedObjectStore(store: store, canonicalPath: canonical)
            stores[canonical] = shared  // keeps OO1
            return shared
        }
        if options.history == .tracked, !shared.store.isHistoryTracked {
            try shared.store.startTrackingHistory()  // keeps OO4
        }
        return shared.lease()
    }

    /// Whether a store is open in this process for the file at `path`.
    package static func isOpen(path: String) -> Bool {
        open.withLock { $0[canonicalPath(path)] != nil }
    }

    /// Ends `lease`; closes its store when it was the last one (keeps OO2).
    static func release(_ lease: ObjectStoreLease) throws {
        let shared = lease.shared
        guard let canonical = shared.canonicalPath else {
            if shared.remove(lease) == 0 { try shared.store.close() }
            return
        }
        try open.withLock { stores in
            guard shared.remove(lease) == 0 else { return }
            if stores[canonical] === shared { stores[canonical] = nil }
            try shared.store.close()
        }
    }

    /// The path that names the file whatever way the caller spelled it: absolute, without `.`
    /// and `..`, with symbolic links resolved (the file's own, once it exists, and its folder's).
    package static func canonicalPath(_ path: String) -> String {
        let standard = URL(fileURLWithPath: path).standardizedFileURL.path
        if let resolved = realPath(standard) { return resolved }
        let folder = (standard as NSString).deletingLastPathComponent
        let name = (standard as NSString).lastPathComponent
        guard let resolvedFolder = realPath(folder) else { return standard }
        return (resolvedFolder as NSString).appendingPathComponent(name)
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
