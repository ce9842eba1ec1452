// The seam between a store and the other processes that may have it open: every assumption that
// one process owns the store goes through it. Two implementations:
//
//  - `SingleProcessCoordination`: one process at a time (an exclusive `flock` on the page file;
//    read-only opens a shared one). Nothing is shared, nothing else ever commits: the WAL index,
//    the reader registry, the writer gate and the checkpoint state live in this process alone.
//  - `SharedStoreCoordination`: any number of processes, through the shared file `NAME-shm`
//    (SharedStateLayout): a writer lock, the log's end and the header in use, and a reader mark
//    per process. Each process keeps its own WAL index and page map and brings them up to date
//    from the WAL and the page file when the shared state moves (Store+Refresh.swift).
//
// Invariants (the Store relies on them):
//  CN1. Between `lockWriter` and `unlockWriter` no other process commits or checkpoints.
//  CN2. `publish` is called only between `lockWriter` and `unlockWriter`; `stamp()` changes
//       whenever another process published or made a commit durable.
//  CN3. `beginCheckpoint` returns the oldest snapshot a reader of another live process may hold;
//       a reader that set its mark without seeing `checkpointOfOtherRunning()` is counted by every
//       checkpoint that begins after it (both sides use sequentially consistent atomics: one of
//       the two sees the other's store).

/// How a store shares itself with other processes (CN1–CN3).
protocol StoreCoordination: AnyObject, Sendable {
    /// Whether other processes may open the store at the same time.
    var isShared: Bool { get }
    /// Whether this store was the only one attached when it opened (it may then recover and
    /// reset the WAL, and initialise the shared state).
    var openedAlone: Bool { get }
    /// Takes the cross-process writer lock (after the in-process gate). Returns true when the
    /// shared state cannot be trusted (a writer died mid-publish, a checkpoint mark of a dead
    /// process, damaged words): the caller then rebuilds it from the files.
    func lockWriter() throws -> Bool
    func unlockWriter()
    /// A value that changes whenever the shared state or the durable commit changes (CN2).
    func stamp() -> (sequence: UInt64, durable: UInt64)
    /// The shared state and the sequence it was read at, or nil when it is being changed for
    /// longer than a publish takes or fails its checksum (the caller repairs it under the writer lock).
    func readState() -> (SharedStoreState, sequence: UInt64)?
    /// The durable commit others published.
    func durableCommit() -> CommitSequence
    /// Publishes the state (CN2); returns the new sequence.
    func publish(_ state: SharedStoreState) -> UInt64
    /// Raises the durable commit.
    func publishDurable(_ commit: CommitSequence)
    /// Sets this process's reader mark: the oldest snapshot one of its readers holds, or nil.
    func setReaderMark(_ oldest: CommitSequence?)
    /// Whether another process is running a checkpoint now (CN3).
    func checkpointOfOtherRunning() -> Bool
    /// Marks a checkpoint as running; returns the oldest snapshot any reader of another live
    /// process holds, and whether any does (CN3).
    func beginCheckpoint() throws -> (oldest: CommitSequence?, othersReading: Bool)
    func endCheckpoint()
    /// Whether the writer lock is held by another process.
    func writerHeldByOther() -> Bool
    /// Releases everything this store holds in the shared file.
    func detach()
}

/// Today's single-process store: nothing is shared.
final class SingleProcessCoordination: StoreCoordination {
    var isShared: Bool { false }
    var openedAlone: Bool { true }
    func lockWriter() throws -> Bool { false }
    func unlockWriter() {}
    func stamp() -> (sequence: UInt64, durable: UInt64) { (0, 0) }
    func readState() -> (SharedStoreState, sequence: UInt64)? { nil }
    func durableCommit() -> CommitSequence { CommitSequence(0) }
    func publish(_ state: SharedStoreState) -> UInt64 { 0 }
    func publishDurable(_ commit: CommitSequence) {}
    func setReaderMark(_ oldest: CommitSequence?) {}
    func checkpointOfOtherRunning() -> Bool { false }
    func beginCheckpoint() throws -> (oldest: CommitSequence?, othersReading: Bool) { (nil, false) }
    func endCheckpoint() {}
    func writerHeldByOther() -> Bool { false }
    func detach() {}
}
