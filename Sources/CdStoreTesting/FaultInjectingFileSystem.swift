// A file system for crash and I/O-error tests: an in-memory volume, a disk model with a volatile
// write cache on top of it, an operation counter and log, and a `FaultPlan` that fails, shortens
// or "crashes" chosen operations. In the spirit of SQLite's crash VFS (src/test6.c) and LevelDB's
// fault-injection env, which drops the data a process wrote but did not sync.
//
// The disk model. Every file (node) has a *durable* image and a list of *pending* changes: the
// writes and truncates made since its last sync. The live image that reads see is always the
// durable image with every pending change applied in order. Directory entries work the same
// way: `volume.entries` is the live namespace, `durableEntries` what the directory holds on disk.
//
// Invariants (all state sits in one `FaultState` behind one `LockedState` (a pthread mutex); every operation holds it
// from admission to completion, so operations are atomic and the sequence is total):
//  FD1. Applying `shadows[n].pending` in order to `shadows[n].durable` gives the live bytes of node
//       n, for as long as the node lives in the volume.
//  FD2. `sync` of a file sets its durable image to the live bytes and empties its pending list
//       (FS3); nothing else makes data durable.
//  FD3. A created or removed name changes `durableEntries` only through `syncDirectory` of its
//       directory; a name in `durableEntries` always has a shadow, even after its node is unlinked
//       and closed (a shadow is never deleted).
//  FD4. Operation numbers are 1, 2, 3… in the order the operations were admitted; every admitted
//       operation is logged (when logging is on) with the outcome it really had.
//  FD5. Once a crash fired, nothing changes any more: every call throws `SimulatedCrash`, and
//       only inspection (`operationLog`, `survivingFiles`, `powerLoss`) still works.
// `invariantViolations()` re-checks FD1 and FD3; the tests call it after their workloads.

import CdStore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file system that counts, logs and breaks operations, and simulates power loss.
///
/// Thread-safe; every call is atomic and gets the next number of one global sequence.
///
/// ```swift
/// let fs = FaultInjectingFileSystem(plan: .crash(at: .sync, occurrence: 2))
/// do {
///     try runWorkload(on: fs)                       // dies at the 2nd sync
/// } catch is SimulatedCrash {}
/// let rebooted = fs.powerLoss(seed: 42, mode: [.reorderUnsynced, .tearLast])
/// try recoverAndCheck(on: rebooted)                 // only durable state, plus seeded damage
/// ```
public final class FaultInjectingFileSystem: StoreFileSystem {
    let state: LockedState<FaultState>

    /// Creates a file system holding `files`, all of them durable, with `plan` armed.
    /// With `logsOperations` false nothing is kept in `operationLog` (operations are still counted).
    public init(files: [String: [UInt8]] = [:], plan: FaultPlan = .none, logsOperations: Bool = true) {
        state = LockedState(FaultState(files: files, plan: plan, logging: logsOperations))
    }

    // MARK: - Plan and inspection

    /// The armed faults. Setting it replaces the rules; the operation count, occurrence counts
    /// and any persistent failure already in force are kept.
    public var plan: FaultPlan {
        get { state.withLock { $0.plan } }
        set { state.withLock { $0.plan = newValue } }
    }

    /// How many operations have been admitted so far (the number of the last one).
    public var operationCount: Int { state.withLock { $0.sequence } }

    /// Every logged operation, oldest first.
    public var operationLog: [FileOperation] { state.withLock { $0.log } }

    /// Forgets the log (the count goes on), e.g. before the commit whose writes a test measures.
    public func clearOperationLog() {
        state.withLock { $0.log.removeAll() }
    }

    /// The bytes that writes put into `path` (into any file when nil) in operations numbered
    /// above `sequence`, counting the landed prefix of short and torn writes. Read from the log,
    /// so it counts only what is still logged (nothing when `logsOperations` is false).
    ///
    /// ```swift
    /// let before = fs.operationCount
    /// try transaction.commit()
    /// let walBytes = fs.bytesWritten(to: "store.wal", after: before)
    /// ```
    public func bytesWritten(to path: String? = nil, after sequence: Int = 0) -> Int {
        state.withLock { state in
            state.log.lazy
                .filter { $0.sequence > sequence && (path == nil || $0.path == path) }
                .reduce(0) { $0 + $1.bytesWritten }
        }
    }

    /// The crash that fired, or nil while the simulated process is alive.
    public var crash: SimulatedCrash? { state.withLock { $0.crash } }

    /// The live bytes of the file at `path` (what a read would see now, synced or not).
    public func contents(of path: String) -> [UInt8]? {
        state.withLock { $0.volume.contents(of: path) }
    }

    /// Every live path, sorted.
    public var paths: [String] { state.withLock { $0.volume.entries.keys.sorted() } }

    /// Re-checks FD1 and FD3 and returns the violations, empty when the disk model is consistent.
    /// Tests call it after a workload, in the spirit of SQLite's `assert_pager_state`.
    package func invariantViolations() -> [String] {
        state.withLock { state in
            var violations: [String] = []
            for (node, live) in state.volume.nodes.sorted(by: { $0.key < $1.key }) {
                guard let shadow = state.shadows[node] else {
                    violations.append("FD3: live node \(node) has no shadow")
                    continue
                }
                var replayed = shadow.durable
                for change in shadow.pending { Self.apply(change, to: &replayed) }
                if replayed != live.data {
                    violations.append(
                        "FD1: node \(node): durable + pending gives \(replayed.count) bytes, "
                            + "live has \(live.data.count)"
                    )
                }
            }
            for (path, node) in state.durableEntries where state.shadows[node] == nil {
                violations.append("FD3: durable entry \(path) names node \(node) without a shadow")
            }
            return violations
        }
    }

    // MARK: - StoreFileSystem

    public func open(_ path: String, mode: FileOpenMode) throws -> any StoreFile {
        let handle = try state.withLock { state in
            try state.perform(.open, path) { state, _ in
                let opened = try state.volume.open(path, mode: mode)
                if opened.created { state.shadows[opened.node] = FaultState.Shadow() }
                return opened.handle
            }
        }
        return FaultInjectingFile(fileSystem: self, handle: handle, path: path)
    }

    /// Whether `path` exists in the live namespace. Not an operation: it is neither counted nor
    /// failed, and it still answers after a crash.
    public func fileExists(_ path: String) -> Bool {
        state.withLock { $0.volume.exists(path) }
    }

    /// Removes the live name; the removal is durable only after `syncDirectory` (FD3).
    public func remove(_ path: String) throws {
        try state.withLock { state in
            try state.perform(.remove, path) { state, _ in _ = state.volume.remove(path) }
        }
    }

    /// Renames the live name; like a removal, durable only after `syncDirectory` (FD3).
    public func rename(_ path: String, to newPath: String) throws {
        try state.withLock { state in
            try state.perform(.rename, path) { state, _ in
                guard state.volume.rename(path, to: newPath) else {
                    throw StoreError.io(operation: "rename", path: path, errno: ENOENT)
                }
            }
        }
    }

    /// Makes every creation and removal in `path`'s directory durable (FD3).
    public func syncDirectory(containing path: String) throws {
        try state.withLock { state in
            try state.perform(.syncDirectory, path) { state, _ in
                let directory = POSIXFileSystem.parentDirectory(of: path)
                let names = Set(state.volume.entries.keys).union(state.durableEntries.keys)
                for name in names where POSIXFileSystem.parentDirectory(of: name) == directory {
                    state.durableEntries[name] = state.volume.entries[name]
                }
            }
        }
    }
}

// MARK: - State

/// Everything the fault-injecting file system knows; see the invariants at the top of the file.
struct FaultState {
    typealias NodeID = InMemoryVolume.NodeID

    /// A change still in the volatile cache.
    enum PendingChange {
        case write(offset: UInt64, bytes: [UInt8])
        case truncate(size: UInt64)
    }

    /// A node's durable image and its pending changes (FD1).
    struct Shadow {
        var durable: [UInt8] = []
        var pending: [PendingChange] = []
    }

    var volume: InMemoryVolume
    var shadows: [NodeID: Shadow] = [:]
    var durableEntries: [String: NodeID] = [:]
    var plan: FaultPlan
    var sequence = 0
    var kindCounts: [FileOperationKind: Int] = [:]
    var pathKindCounts: [String: [FileOperationKind: Int]] = [:]
    var log: [FileOperation] = []
    let logging: Bool
    /// The errno every operation fails with once a persistent rule fired.
    var persistentErrno: Int32?
    var crash: SimulatedCrash?

    init(files: [String: [UInt8]], plan: FaultPlan, logging: Bool) {
        volume = InMemoryVolume(files: files)
        for (path, node) in volume.entries {
            shadows[node] = Shadow(durable: volume.contents(ofNode: node))
            durableEntries[path] = node
        }
        self.plan = plan
        self.logging = logging
    }

    /// Admits one operation (FD4), applies the plan, then runs `body` with the fault it must
    /// model itself (a short or torn write), if any. Injected failures of other kinds throw here.
    /// Any `StoreError` from `body` is recorded as the operation's outcome.
    mutating func perform<R>(
        _ kind: FileOperationKind, _ path: String, offset: UInt64? = nil,
        length: Int? = nil,
        _ body: (inout FaultState, FaultAction?) throws -> R
    ) throws -> R {
        if let crash { throw crash }  // FD5
        sequence += 1
        kindCounts[kind, default: 0] += 1
        pathKindCounts[path, default: [:]][kind, default: 0] += 1
        if logging {
            log.append(
                FileOperation(
                    sequence: sequence, kind: kind, path: path, offset: offset,
                    length: length, outcome: .completed))
        }
        if let code = persistentErrno {
            record(.failed(errno: code))
            throw StoreError.io(operation: kind.systemCall, path: path, errno: code)
        }
        var fault: FaultAction?
        if let rule = plan.rules.first(where: { matches($0.trigger, kind, path) }) {
            switch rule.action {
            case let .fail(code), let .shortWrite(_, code):
                if rule.persistent { persistentErrno = code }
                if kind != .write || rule.action == .fail(errno: code) {
                    record(.failed(errno: code))
                    throw StoreError.io(operation: kind.systemCall, path: path, errno: code)
                }
                fault = rule.action
            case let .crash(landing):
                let crash = SimulatedCrash(operation: sequence, kind: kind, path: path)
                if kind != .write || landing <= 0 {
                    self.crash = crash
                    record(.crashed(landed: 0))
                    throw crash
                }
                fault = rule.action
            }
        }
        do {
            return try body(&self, fault)
        } catch let error as StoreError {
            if case .completed? = log.last?.outcome, log.last?.sequence == sequence {
                switch error {
                case let .io(_, _, code): record(.failed(errno: code))
                case .locked: record(.failed(errno: EWOULDBLOCK))
                default: break
                }
            }
            throw error
        }
    }

    /// Sets the outcome of the operation being performed (the last one logged).
    mutating func record(_ outcome: FileOperation.Outcome) {
        guard logging, let last = log.indices.last, log[last].sequence == sequence else { return }
        log[last].outcome = outcome
    }

    private func matches(_ trigger: FaultTrigger, _ kind: FileOperationKind, _ path: String) -> Bool {
        switch trigger {
        case let .operation(number):
            return number == sequence
        case let .occurrence(wanted, number, nil):
            return wanted == kind && kindCounts[kind] == number
        case let .occurrence(wanted, number, filter?):
            return wanted == kind && filter == path && pathKindCounts[path]?[kind] == number
        case let .every(wanted, filter):
            return wanted == kind && (filter == nil || filter == path)
        }
    }
}
