// The Cd-facing front of sync: a `SyncEngine` bound to the `Cd` stack's store and commit path.

import Cadmium
import CdObjects
import Foundation
import Synchronization

/// Syncs the `Cd` stack's store with a PostgreSQL server (docs/SYNC.md).
///
/// The store must record persistent history (`StoreOptions.history = .tracked`); the entities
/// named sync, the others stay local. Pulled changes are ordinary commits: they reach the main
/// context, `Cd.commits` and fetched results controllers.
///
/// ```swift
/// let sync = try CdSync(server: URL(string: "postgres://cadmium@127.0.0.1:5432/cadmium")!,
///                       scope: "team-42", entities: ["Note", "Tag"])
/// try await sync.syncNow()        // one push of local history and one pull of remote changes
/// sync.start()                    // pushes after commits, pulls on LISTEN/NOTIFY and a timer
/// for await event in sync.events { print(event) }
/// await sync.stop()
/// ```
public final class CdSync: Sendable {
    package let engine: SyncEngine
    private let tasks = Mutex<[Task<Void, Never>]>([])

    /// A sync of the current `Cd` stack's store with `server` (a `postgres://` URL), for the
    /// objects of `entities` (and their sub-entities) in `scope`, a name that the replicas sharing
    /// one data set agree on. `policies` chooses a conflict policy per entity (default: newest
    /// edit wins). `modelVersion` is the version of the app's model that its pushes declare: a
    /// scope whose `min_model_version` is higher refuses them with
    /// ``CdSyncError/Code/modelTooOld`` (docs/SYNC.md, Versions). Throws when there is no stack,
    /// when the store keeps no history, or when an entity breaks a model rule of sync (the error
    /// names the entity and the rule).
    ///
    /// ```swift
    /// let sync = try CdSync(server: url, scope: "team-42", entities: ["Note", "Tag"], modelVersion: 3)
    /// ```
    public convenience init(
        server: URL, scope: String, entities: [String], policies: [String: CdSyncConflictPolicy] = [:],
        modelVersion: Int = 1
    ) throws {
        let path = try Cd.commitPath("CdSync(server:scope:entities:)")
        var options = SyncEngineOptions()
        options.policies = policies
        options.modelVersion = modelVersion
        try self.init(
            engine: SyncEngine(
                store: path.store, commitPath: SyncCommitPath(begin: path.beginWriter, commit: path.commitWriter),
                server: server, scope: scope, entities: entities, options: options))
    }

    /// A front for an engine made elsewhere (tests, several replicas in one process).
    package init(engine: SyncEngine) { self.engine = engine }

    /// One push of every pending local change, then one pull of the remote changes, applied in
    /// one local commit. Throws a ``CdSyncError`` (``CdSyncError/Code/serverUnreachable`` while
    /// the server is away: local writes go on, and the next sync pushes them).
    public func syncNow() async throws { try await engine.syncNow() }

    /// Keeps syncing in the background until ``stop()``: pushes after local commits, pulls when
    /// the server announces a change (LISTEN/NOTIFY) and every few seconds, retrying with a
    /// growing pause while the server is away.
    public func start() {
        tasks.withLock { tasks in
            guard tasks.isEmpty else { return }
            let engine = self.engine
            tasks = [
                Task { await engine.runLoop() },
                Task { await engine.listenLoop() },
            ]
        }
    }

    /// Everything the engine does from now on (pushes, pulls, conflicts, errors), as an
    /// asynchronous sequence; each access is a new subscription, which ends at ``stop()``.
    public var events: AsyncStream<CdSyncEvent> { engine.events.subscribe() }

    /// The replica's sync state: pending local changes, last push and pull, last error.
    public func status() async throws -> CdSyncStatus { try await engine.status() }

    /// Stops the background sync, closes the server connections and ends the event sequences.
    public func stop() async {
        let running = tasks.withLock { tasks -> [Task<Void, Never>] in
            defer { tasks = [] }
            return tasks
        }
        for t in running { t.cancel() }
        await engine.stopBackground()
        for t in running { await t.value }
        await engine.stopBackground()
        engine.events.finish()
    }
}
