// A container: one store and everything the `Cd` API keeps for it — the model, the object store
// (a lease on the process's one store for the file, OpenObjectStores.swift in CdObjects), the root
// save context that owns its writer, the main context, the serial transaction queue, the merge
// queue (CdContainer+Commits.swift), the commit and remote change broadcasts, the running
// transaction bodies and the remote change watcher. `Cd` is a facade over a default container
// (`Cd.initWithStore` sets it, `Cd.close` closes it); a test or an app with several stores makes
// its own containers and runs `Cd` code against one with `Cd.withContainer` (CdContainer+Current).
//
// Invariants:
//  CN1. Everything a container owns belongs to it alone: two containers share no context, merge
//       queue, broadcast, serial queue or object, so code running against one never sees the
//       objects, commits or notifications of another (their notifications carry the container as
//       their `object`).
//  CN2. A context, an object, a fetch terminal, a results controller and an observation reach
//       their container through their context (`CdManagedObjectContext.container`), never through
//       the default: once made, they keep working against their container whatever the default.
//  CN3. Code that runs for a container on another thread or queue runs with it current: a
//       transaction body through its context (attached to the thread that runs it), the
//       asynchronous forms and the main-queue merges through `Cd.withContainer`.
//  CN4. `Cd.commits` and `Cd.remoteChanges` outside any container scope follow the default
//       container, whichever it is when the commit is merged (so a subscription made before
//       `Cd.initWithStore`, or across a replacement, keeps receiving); inside a scope they are
//       that container's own (`CdContainer.commits`).
//  CN5. A store file is open once per process: every container (and SwiftData container) on the
//       file holds a lease on the same `ObjectStore` (OO1), announces each durable commit to the
//       other leases, and merges theirs into its main context like its own (ST1): both see each
//       other's commits in fetches at once and in their main contexts after the merge.
//  CN6. After `close()` the container admits no transaction or read (MG1), its observations have
//       ended (RW1), its watcher is stopped (RM3) and its lease is released (the store closes with
//       the last lease, OO2); `isClosed` says so, and objects of its main context are not read.
//
// Confinement: immutable after init except the locked state (`contextCounter`, `merges`,
// `mergePolicy`, `remoteWatcher`, `closed`) and the atomics; thread-safe.

import Foundation
import CdObjects
import CdStore
import Synchronization

/// A store with its contexts: what `Cd.initWithStore` opens as the default, and what a test or an
/// app with several stores opens as many times as it needs, each independent of the others.
///
/// `Cd` calls run against the default container unless a container is made current with
/// ``Cd/withContainer(_:_:)-(CdContainer,()throws->R)`` (a task-local value: it follows the task
/// and the transactions started inside). Two containers never see each other's objects, commits or
/// notifications; two containers on the same file share one store and see each other's commits.
///
/// ```swift
/// let container = try CdContainer(model: model, storeURL: nil)     // in memory
/// defer { try? container.close() }
/// try await Cd.withContainer(container) {
///     try await Cd.transaction { _ = try Cd.create(Item.self) }
///     let count = try await MainActor.run { try Cd.objects(Item.self).count() }
/// }
/// ```
public final class CdContainer: @unchecked Sendable {
    // @unchecked: the lets are set once in init; the vars are behind locks or are atomics.
    /// The entity model with its classes.
    public let model: CdModel
    let store: any StoreBackend
    /// This container's lease on the process's store for its file (CN5); nil for a store a test
    /// substituted.
    let lease: ObjectStoreLease?
    private(set) var root: CdManagedObjectContext!
    private(set) var main: CdManagedObjectContext!
    /// Cadmium's internal serial transaction queue.
    let serialQueue = DispatchQueue(label: "org.cadmium.linux.serialTransactions")
    private let contextCounter = LockedState(0)
    /// Held while the store writes a commit: orders commits with their tickets (ST1).
    let saveLock = Lock()
    /// Commits written and not merged into the main context yet (ST1–ST3).
    let merges = LockedState(MergeQueue())
    /// The transaction bodies running now; `close()` waits for them (RunningTransactions.swift).
    let running = RunningTransactions()
    /// How many pending inserted and changed objects a transaction context holds before it
    /// flushes them (CdManagedObjectContext+Flush.swift); tests lower it.
    let flushThreshold = Atomic<Int>(CdManagedObjectContext.defaultFlushThreshold)
    /// The merge policy of commits whose context sets none (`Cd.mergePolicy`).
    let mergePolicy = LockedState(MergePolicy.mergeByPropertyObjectTrump)
    /// Whether transactions are serial when a call passes `serial: nil`.
    let defaultSerialTransactions: Atomic<Bool>
    /// This container's commits, merged (CN1, CN4).
    let commitBroadcast = CommitBroadcast()
    /// Other processes' commits to this container's store (CN1, CN4).
    let remoteChangeBroadcast = RemoteChangeBroadcast()
    /// Notices other processes' commits, when the store is shared (RemoteChangeWatcher.swift).
    let remoteWatcher = LockedState<RemoteChangeWatcher?>(nil)
    /// Set once by `close()` (CN6).
    private let closed = Atomic<Bool>(false)

    /// Opens the store at `storeURL` (nil: a new in-memory store of its own) and creates the root
    /// and main contexts. A file already open in this process (by another container, by
    /// `Cd.initWithStore`, by a SwiftData `ModelContainer`) is not opened again: this container
    /// shares its store and sees its commits (then `options` and `migration` do not apply: the
    /// store stays as it was opened). A file written with an older version of the model is
    /// migrated first, as ``Cd/initWithStore(model:storeURL:options:migration:serialTX:)`` does.
    ///
    /// - Parameters:
    ///   - serialTX: the default for `serial: nil` in the transaction calls made against it.
    /// - Throws: `CdError.incompatibleModel` when the file is open in this process with another
    ///   model version, or (migration disabled) was written with one; `MigrationError` when a
    ///   migration fails; `CdError.store` for engine failures.
    /// ```swift
    /// let container = try CdContainer(model: try CdModel(classes: [Item.self]), storeURL: nil)
    /// ```
    public convenience init(
        model: CdModel, storeURL: URL?, options: StoreOptions = StoreOptions(),
        migration: MigrationOptions = .automatic, serialTX: Bool = false
    ) throws {
        let lease = try OpenObjectStores.acquire(
            path: storeURL?.path, model: model.objectModel, options: options,
            migration: migration.completed(with: model.versionHistory))
        self.init(model: model, store: lease.store, lease: lease, serialTX: serialTX)
        do { try watchRemoteChanges(storeURL: storeURL) } catch {
            try? lease.release()
            throw error
        }
    }

    /// A container on `store`; `lease` is the store's lease when it came from the registry.
    init(model: CdModel, store: any StoreBackend, lease: ObjectStoreLease? = nil, serialTX: Bool = false) {
        self.model = model
        self.store = store
        self.lease = lease
        self.defaultSerialTransactions = Atomic(serialTX)
        root = CdManagedObjectContext(kind: .root, container: self, number: 0)
        main = CdManagedObjectContext(kind: .main, container: self, number: 0)
        lease?.observeOtherCommits { [weak self] applied in self?.queueOtherUsersCommit(applied) }
    }

    /// Whether ``close()`` has run (CN6).
    public var isClosed: Bool { closed.load(ordering: .acquiring) }

    /// Closes the container: starts no further transaction or read (a later one is misuse A1),
    /// waits for the transactions and reads running now to finish, ends the observations of its
    /// queries, and gives its store back (closed, checkpointed, when no other container of this
    /// process has the file open). Closing twice does nothing.
    ///
    /// - Throws: ``CdMisuse`` A2 when called inside a transaction or read body (it would wait for
    ///   itself); `CdError.store` when the final checkpoint fails.
    /// ```swift
    /// try container.close()
    /// ```
    public func close() throws {
        if ThreadState.current.insideTransaction || ThreadState.current.context?.kind == .snapshot {
            throw Misuse.report(
                .a2,
                "CdContainer.close() (or Cd.close()) was called inside a transaction or Cd.read body, which "
                    + "would wait for itself forever. Close the store from outside any transaction or read.")
        }
        // Running bodies finish first; new ones are refused from now on (MG1).
        running.closeAndWait()
        try closeWithoutWaiting()
    }

    /// `close()` without waiting for running bodies (tests' `Cd.reset()`, and the end of
    /// `close()` once they are done): keeps CN6.
    func closeWithoutWaiting() throws {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        Cd.forgetDefault(self)
        // Query observations of this container end now (a waiting `changes()` loop returns, RW1).
        ResultsObservations.end(on: self)
        stopWatchingRemoteChanges()
        if let lease { try lease.release() } else { try (store as? ObjectStore)?.close() }
    }

    /// Every commit merged into this container's main context from now on, in commit order (each
    /// access is a new subscription; see ``Cd/commits``).
    public var commits: AsyncStream<CdCommit> { commitBroadcast.subscribe() }

    /// Every time other processes' commits to this container's store become visible (see
    /// ``Cd/remoteChanges``).
    public var remoteChanges: AsyncStream<CdRemoteChange> { remoteChangeBroadcast.subscribe() }

    /// Starts watching for other processes' commits (a store file that other processes may
    /// open).
    func watchRemoteChanges(storeURL: URL?) throws {
        let watcher = try RemoteChangeWatcher.start(for: self, storeURL: storeURL)
        remoteWatcher.withLock { $0 = watcher }
    }

    /// Stops watching (before the store closes, RM3 of RemoteChangeWatcher.swift).
    func stopWatchingRemoteChanges() {
        let watcher = remoteWatcher.withLock { w -> RemoteChangeWatcher? in
            defer { w = nil }
            return w
        }
        watcher?.stop()
    }

    /// A fresh context for one transaction body, a child of the root.
    func newTransactionContext() -> CdManagedObjectContext {
        CdManagedObjectContext(kind: .transaction, container: self, number: nextContextNumber())
    }

    /// The next number of a transaction or editing context, for messages.
    func nextContextNumber() -> Int {
        contextCounter.withLock { value -> Int in
            value += 1; return value
        }
    }
}

extension CdContainer: CustomStringConvertible {
    /// "CdContainer(file /path)" or "CdContainer(in memory)".
    public var description: String {
        "CdContainer(\(lease?.canonicalPath.map { "file \($0)" } ?? "in memory")\(isClosed ? ", closed" : ""))"
    }
}
