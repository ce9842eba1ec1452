// The sync engine of one replica, on CdObjects' object store: push (PushCollector, then the
// server's compare-and-set), pull (pages of one server snapshot into one local commit,
// SyncEngine+Pull.swift), and the
// reconciliation of the acknowledged position after a crash, a replay, a restored server or a
// copied store file. The Cd-facing front is `CdSync`; tests and the campaign's replica processes
// use this directly, one engine per store.
//
// Invariants:
//  SE1. A batch is acknowledged locally only after the server committed it or reported a
//       position that names it (crash after the server's commit): `m.pushed` never passes what
//       the server holds, and a lost acknowledgement is recovered by the next push (PU1).
//  SE2. A server position ahead of the local one is adopted only when the local history holds
//       the named transaction with the same fingerprint; otherwise another copy of the store
//       pushed under this replica ID (`replicaForked`), and nothing is pushed.
//  SE3. A server position behind the local one (a server restored from an older backup) moves
//       the local position back to it, so the lost batches are pushed again from history (or,
//       when history no longer reaches back, the whole state, PC4).
//  SE4. One sync step runs at a time, so batches go out in order and only one transaction at a
//       time uses the engine's one connection: `syncNow` waits for the step that runs (the
//       actor alone would let two steps interleave at their awaits — the background loop's and
//       an app's `syncNow` — and their BEGIN … COMMIT on one connection would mix).
//  SE5. Every exchange with the server ends within `options.serverTimeout` (ServerDeadline.swift),
//       a push within that plus `serverTimeoutPerOperation` for each operation it carries, and a
//       connection that timed out or that the server closed is dropped: the next step connects
//       again. A push's work grows with its size, and two batches have no bound the split can
//       keep: a store's whole state when it starts syncing (PC4) and a backlog held open by an
//       object touched all through it (PB2). Under one fixed deadline such a push failed at
//       every retry, and the replica never synced (10,000 notes took 22.5 s in a debug build
//       against 20 s).
//  SE6. Store work — reading history and state, the engine's side commits, applying a pull — runs
//       on the engine's own serial Dispatch queue (a pull's write: on a thread of its own, PG7),
//       never on Swift's cooperative pool: a commit
//       may wait for the store's write lock, which another process can hold, and a blocked pool
//       thread (one per core) would hold up every task of the process, deadlines included.

import Cadmium
import CdObjects
import Foundation
import PostgresNIO

/// How a replica engine behaves beyond its defaults (tests and the campaign set these).
package struct SyncEngineOptions: Sendable {
    /// Conflict policies by entity (default: newest edit wins).
    package var policies: [String: CdSyncConflictPolicy] = [:]
    /// The model version pushes declare (the server may refuse versions below its minimum).
    package var modelVersion = 1
    /// Added to the wall clock in the hybrid clock (a skewed clock).
    package var clockOffset: TimeInterval = 0
    /// How often the background loop looks for local commits.
    package var localPollInterval: Duration = .milliseconds(50)
    /// How often the background loop pulls without a notification.
    package var pullInterval: Duration = .seconds(5)
    /// Stops a push between the server's commit and the local acknowledgement (tests: the crash
    /// after the server's commit).
    package var failAfterServerCommit = false
    /// Sends every applied batch a second time and requires the server to refuse it (the
    /// campaign's duplicated pushes, PU1).
    package var duplicatePushes = false
    /// How long one exchange with the server (connecting, a push, a page of a pull) may take
    /// before its connection is closed.
    package var serverTimeout: Duration = .seconds(20)
    /// What a push may take beyond `serverTimeout` for each operation (object) it carries (SE5).
    package var serverTimeoutPerOperation: Duration = .milliseconds(10)
    /// How large one push batch may grow before it is cut at the next clean boundary (PB3 of
    /// PushBatchSplit.swift).
    package var pushBatchLimit = PushBatchLimit(transactions: 500, changes: 2000)
    /// How many objects one page of a pull reads (PG3 of SyncEngine+Pull.swift).
    package var pullPageSize = 500
    /// Runs after each page of a pull is applied to the pull's uncommitted local write, with the
    /// page's number from 1 (tests: a connection cut, or a look at the store, between pages).
    package var afterPulledPage: (@Sendable (Int) async throws -> Void)? = nil
    /// Runs within a push's deadline before the batch is sent (tests: a server slow to answer).
    package var beforePushSend: (@Sendable () async throws -> Void)? = nil
    /// Runs in the background loop right after each successful sync, before the loop reads the
    /// store's last token (tests: a local commit that lands after a sync's push, BG5).
    package var afterBackgroundSync: (@Sendable () async -> Void)? = nil

    package init() {}

    /// The deadline of a push of `operations` operations (SE5).
    package func pushTimeout(operations: Int) -> Duration {
        serverTimeout + serverTimeoutPerOperation * max(0, operations)
    }
}

/// The sync engine of one store.
package actor SyncEngine {
    let store: ObjectStore
    /// How pulled pages are written and committed (PG2 of SyncEngine+Pull.swift).
    let commitPath: SyncCommitPath
    let address: ServerAddress
    let scope: String
    let schema: SyncSchema
    package var options: SyncEngineOptions
    var server: ServerConnection?
    private(set) var lastPush: Date?
    var lastPull: Date?
    private(set) var lastError: CdSyncError?
    /// The subscribers of `CdSync.events` (BroadcastSubscribers BS1–BS2: nothing dropped, in order).
    let events = BroadcastSubscribers<CdSyncEvent>()
    /// Where the engine's store work runs (SE6).
    let storeQueue = DispatchQueue(label: "cadmium.sync.store")
    /// The LISTEN connection of the background loop (SyncEngine+Background.swift).
    var listener: PostgresConnection?
    /// Set when the server announced a change of the scope.
    var notified = false
    /// Whether a sync step runs, and the steps waiting for it (SE4), first come first served.
    private var stepRunning = false
    private var stepWaiters: [CheckedContinuation<Void, Never>] = []
    /// The batches of the backlog being pushed that follow the last acknowledged one (PP1 of
    /// PushPlan.swift): set only after an acknowledgement, taken by the next push.
    private var pushPlan: PushPlan?
    /// How many history transactions this engine's pushes have read (PB5): a backlog of n
    /// transactions is read once, whatever its number of batches.
    package private(set) var pushHistoryReads = 0

    /// An engine for `store`, committing pulled changes through `commitPath` (the `Cd` stack's
    /// commit path, or the store's own writer: `.store(store)`).
    package init(
        store: ObjectStore, commitPath: SyncCommitPath, server: URL, scope: String, entities: [String],
        options: SyncEngineOptions = SyncEngineOptions()
    ) throws {
        guard store.historyID != nil else {
            throw CdSyncError(
                .historyNotTracked, "sync needs persistent history: open the store with StoreOptions.history = .tracked"
            )
        }
        self.store = store
        self.commitPath = commitPath
        self.address = try ServerAddress(server)
        self.scope = scope
        self.schema = try SyncSchema(model: store.model, entities: entities)
        self.options = options
    }

    package func setOptions(_ o: SyncEngineOptions) { options = o }

    /// Closes the server connection.
    package func close() async {
        await server?.close()
        server = nil
    }

    // MARK: - One sync

    /// Pushes every pending batch, then pulls once (PA1: pushes again when a commit slipped in).
    package func syncNow() async throws {
        await beginStep()
        defer { endStep() }
        do {
            for _ in 0..<8 {
                do { try await pushAll() } catch let e as CdSyncError where e.code == .conflictRefused {
                    // The error policy: the server's values replace the refused edits locally, so
                    // the replica can go on (docs/SYNC.md, Conflicts).
                    _ = try await pullOnce(force: true)
                    throw e
                }
                if try await pullOnce(force: false) { break }
            }
            lastError = nil
        } catch {
            let e = error as? CdSyncError ?? CdSyncError.store(error, "syncing \(scope)")
            lastError = e
            if e.code == .serverUnreachable || e.code == .serverError { await close() }
            events.yield(.error(e))
            throw e
        }
    }

    /// Waits until no other sync step runs (SE4).
    private func beginStep() async {
        guard stepRunning else {
            stepRunning = true
            return
        }
        await withCheckedContinuation { stepWaiters.append($0) }
    }

    /// Hands the turn to the next waiting step, if any (SE4).
    private func endStep() {
        if stepWaiters.isEmpty { stepRunning = false } else { stepWaiters.removeFirst().resume() }
    }

    /// Pushes batches until nothing is pending; returns how many were applied. Not private:
    /// tests push without the pull that `syncNow` runs after it.
    @discardableResult
    func pushAll() async throws -> Int {
        var applied = 0
        var rounds = 0
        while rounds < 1000 {
            rounds += 1
            guard let outcome = try await pushOnce() else { return applied }
            if outcome { applied += 1 }
        }
        return applied
    }

    /// One push: nil when nothing was pending, true when a batch was applied, false when the
    /// position was reconciled instead (SE1–SE3).
    private func pushOnce() async throws -> Bool? {
        let replica = try await identity()
        let collector = PushCollector(
            store: store, schema: schema, scope: scope, replica: replica, policies: options.policies,
            modelVersion: options.modelVersion, limit: options.pushBatchLimit, clockOffset: options.clockOffset)
        let plan = pushPlan
        pushPlan = nil  // PP1: given back only after this push's acknowledgement
        let (batch, state) = try await read { snapshot in
            let state = try ReplicaState(snapshot)
            return (try collector.collect(snapshot, state, plan: plan), state)
        }
        guard let batch else { return nil }
        pushHistoryReads += batch.historyRead
        if !batch.prepare.isEmpty { try await sideCommit(batch.prepare, "recording the batch's global IDs") }  // PC3
        let server = try await connection()
        let outcome: PushOutcome
        let request = batch.request
        let timeout = options.pushTimeout(operations: request.ops.count)
        let beforeSend = options.beforePushSend
        do {
            outcome = try await deadline(server, "pushing \(request.ops.count) objects", timeout: timeout) {
                try await beforeSend?()
                return try await server.push(request)
            }
        } catch {
            throw ServerConnection.wrap(error, "pushing to \(scope)", address)
        }
        switch outcome {
        case let .applied(_, conflicts):
            if options.duplicatePushes {
                let request = batch.request
                let again = try await deadline(server, "pushing a duplicate", timeout: timeout) {
                    try await server.push(request)
                }
                guard again == .positionMismatch(server: batch.request.to) else {
                    throw CdSyncError(
                        .serverError, "a duplicated batch \(batch.request.to.batches) was not refused: \(again)")
                }
            }
            if options.failAfterServerCommit {
                throw CdSyncError(.serverUnreachable, "test fault: stopped after the server's commit")
            }
            try await sideCommit(
                [ReplicaState.write(batch.request.to)] + batch.acknowledge,
                "acknowledging batch \(batch.request.to.batches)")
            pushPlan = batch.rest  // PP1
            lastPush = Date()
            events.yield(.pushed(batch: batch.request.to.batches, objects: batch.request.ops.count))
            for c in conflicts { events.yield(.conflict(c)) }
            return true
        case let .positionMismatch(serverPosition):
            try await reconcile(local: state.pushed, server: serverPosition)
            return false
        case let .refused(conflicts):
            for c in conflicts { events.yield(.conflict(c)) }
            throw CdSyncError(
                .conflictRefused,
                "the error policy refused batch \(batch.request.to.batches): \(conflicts.count) concurrent edits "
                    + conflicts.prefix(5).map(\.description).joined(separator: "; "))
        case let .modelTooOld(minimum):
            throw CdSyncError(
                .modelTooOld,
                "scope \(scope) accepts pushes from model version \(minimum) up; "
                    + "this replica's is \(options.modelVersion)"
            )
        }
    }

    /// Moves the local position to the server's after a failed compare-and-set (SE1–SE3).
    func reconcile(local: PushedPosition?, server: PushedPosition?) async throws {
        guard let server else {
            // The server has no position for us: restored from before our first push (SE3).
            try await sideCommit([ReplicaState.clearPushed()], "forgetting the acknowledged position")
            return
        }
        let historyID = store.historyID!
        guard server.historyID == historyID else {
            throw CdSyncError(
                .replicaForked,
                "the server's position for this replica is in history \(server.historyID.uuidString), this store's "
                    + "is \(historyID.uuidString): another store pushes under this replica ID")
        }
        // SE2: the server names a transaction; it must be ours.
        if server.number > 0 {
            let store = self.store
            let ours = try await onStore {
                try store.history(after: CdHistoryToken(storeID: historyID, number: server.number - 1))
                    .first { $0.token.number == server.number }
            }
            guard let ours, PushCollector.stamp(ours.timestamp) == server.stamp else {
                throw CdSyncError(
                    .replicaForked,
                    "the server acknowledged transaction \(server.number) of this replica with fingerprint "
                        + "\(server.stamp), which this store's transaction \(server.number) does not have: "
                        + "a copy of this store pushed under the same replica ID")
            }
        }
        try await sideCommit([ReplicaState.write(server)], "adopting the server's position \(server.number)")
    }

    // MARK: - Status

    /// The replica's sync state.
    package func status() async throws -> CdSyncStatus {
        let state = try await read { try ReplicaState($0) }
        return CdSyncStatus(
            replicaID: state.replicaID, scope: state.scope, pendingTransactions: try await pendingCount(state),
            acknowledgedTransaction: state.pushed?.number, acknowledgedBatches: state.pushed?.batches ?? 0,
            cursor: state.cursor?.sequence, lastPush: lastPush, lastPull: lastPull, lastError: lastError)
    }

    private func pendingCount(_ state: ReplicaState) async throws -> Int {
        guard let id = store.historyID else { return 0 }
        let token = state.pushed.flatMap { $0.historyID == id ? CdHistoryToken(storeID: id, number: $0.number) : nil }
        let store = self.store
        let pending = (try? await onStore { try store.history(after: token) }) ?? []
        return pending.filter { $0.author != PushCollector.author }.count
    }

    // MARK: - Helpers

    /// The replica ID, written with the scope on first use; a store synced to another scope is
    /// refused.
    func identity() async throws -> UUID {
        let state = try await read { try ReplicaState($0) }
        if let scope = state.scope, scope != self.scope {
            throw CdSyncError(.scopeMismatch, "the store syncs scope \(scope), not \(self.scope)")
        }
        if let id = state.replicaID { return id }
        let id = UUID()
        try await sideCommit(ReplicaState.write(replicaID: id, scope: scope), "recording the replica ID")
        return id
    }

    /// Runs `body` on `server`, resuming with `serverUnreachable` when it takes longer than
    /// `timeout` (`options.serverTimeout` when nil); then the connection is closed and dropped (SE5; the deadline
    /// cannot be outwaited: ServerDeadline.swift).
    func deadline<R: Sendable>(
        _ server: ServerConnection, _ what: String, timeout: Duration? = nil,
        _ body: @escaping @Sendable () async throws -> R
    ) async throws -> R {
        do {
            return try await withServerDeadline(
                timeout ?? options.serverTimeout, what, onTimeout: { server.closeNow() }, body)
        } catch {
            if self.server === server, server.isClosed || (error as? CdSyncError)?.code == .serverUnreachable {
                self.server = nil
            }
            throw error
        }
    }

    /// The open connection, or a new one (connecting and migrating under the deadline). A
    /// connection the server closed meanwhile is dropped, never used (SE5).
    func connection() async throws -> ServerConnection {
        if let server {
            if !server.isClosed { return server }
            self.server = nil
            await server.close()
        }
        let address = self.address
        let opening = Task<ServerConnection, any Error> { try await ServerConnection.open(address) }
        // A connection that comes after the deadline is closed rather than leaked.
        let closeLate: @Sendable () -> Void = { Task { try? await opening.value.close() } }
        let s: ServerConnection
        do {
            s = try await withServerDeadline(
                options.serverTimeout, "connecting to \(address)", onTimeout: closeLate, { try await opening.value })
        } catch {
            throw ServerConnection.wrap(error, "connecting", address)
        }
        server = s
        return s
    }

    /// Runs `body` on the engine's store queue (SE6), resuming the caller when it is done.
    func onStore<R: Sendable>(_ body: @escaping @Sendable () throws -> R) async throws -> R {
        let queue = storeQueue
        return try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }

    func read<R: Sendable>(_ body: @escaping @Sendable (ObjectSnapshot) throws -> R) async throws -> R {
        let store = self.store
        return try await onStore {
            do { return try store.read(body) } catch { throw CdSyncError.store(error, "reading the local store") }
        }
    }

    /// A local commit of sync state only (no object changes).
    private func sideCommit(_ writes: [SideTreeWrite], _ what: String) async throws {
        var sideChanges = ChangeSet()
        sideChanges.sideWrites = writes
        let changes = sideChanges
        let store = self.store
        try await onStore {
            do { try store.apply(changes) } catch { throw CdSyncError.store(error, what) }
        }
    }
}
