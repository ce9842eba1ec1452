// Several processes on one store, through the shared file (SharedStateLayout, SL1–SL2). Like
// SQLite's `-shm` and LMDB's lock file, it holds nothing that cannot be rebuilt from the page
// file and the WAL: a store that opens it alone (no other store holds the "attached" lock)
// rebuilds it from scratch, and a writer that finds it damaged or half-written by a process that
// died rebuilds it under the writer lock. Its words are untrusted input: each is either checked
// (the state's CRC, the sequence's parity, a slot's lock) or only ever makes this process more
// careful (a reader mark can only lower a checkpoint's bound or keep the WAL from a reset).
//
// Keeps CN1–CN3 of StoreCoordination.swift:
//  - CN1: the writer lock is lock byte 1, exclusive, held from `lockWriter` to `unlockWriter`.
//  - CN3: a reader stores its process's mark, then loads the checkpoint word; a checkpoint stores
//    the checkpoint word, then loads every mark. All four are sequentially consistent.

import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The coordination of a store that other processes may have open (CN1–CN3, SL1–SL2).
final class SharedStoreCoordination: StoreCoordination, @unchecked Sendable {
    let region: any SharedRegion
    let slot: Int
    let openedAlone: Bool
    private let words: UnsafeMutablePointer<Atomic<UInt64>>
    var isShared: Bool { true }

    /// Attaches to the shared file: as the only store (then the caller initialises the state with
    /// `publish` and calls `finishAttach`), or beside others (the file's identity is checked).
    /// Claims a process slot.
    init(region: any SharedRegion) throws {
        self.region = region
        let words = region.base.bindMemory(to: Atomic<UInt64>.self, capacity: SharedStateLayout.size / 8)
        self.words = words
        var alone = false
        var problem: StoreError?
        for _ in 0..<3 {
            if try region.lock(SharedStateLayout.attachLock, exclusive: true, wait: false) {
                alone = true
                problem = nil
                break
            }
            _ = try region.lock(SharedStateLayout.attachLock, exclusive: false, wait: true)
            problem = Self.identityProblem(words, path: region.path)
            if problem == nil { break }
            // A store that was initialising it gave up: try to be the one that does.
            try region.unlock(SharedStateLayout.attachLock)
        }
        if let problem {
            region.close()
            throw problem
        }
        openedAlone = alone
        if alone {
            // Nothing else is attached: whatever the file holds is rebuilt (SL2: no slot is live).
            for w in 0..<(SharedStateLayout.size / 8) { words[w].store(0, ordering: .sequentiallyConsistent) }
            words[SharedStateLayout.versionWord].store(
                UInt64(SharedStateLayout.version), ordering: .sequentiallyConsistent)
            words[SharedStateLayout.magicWord].store(SharedStateLayout.magic, ordering: .sequentiallyConsistent)
        }
        var claimed: Int?
        for i in 0..<SharedStateLayout.slotCount {
            if try region.lock(SharedStateLayout.slotLock(i), exclusive: true, wait: false) {
                claimed = i
                break
            }
        }
        guard let claimed else {
            region.close()
            throw StoreError.locked(path: region.path)
        }
        slot = claimed
        words[SharedStateLayout.markWord(slot: claimed)].store(0, ordering: .sequentiallyConsistent)
        words[SharedStateLayout.pidWord(slot: claimed)].store(UInt64(getpid()), ordering: .sequentiallyConsistent)
    }

    /// What makes the file unusable beside the stores attached to it, if anything.
    static func identityProblem(_ words: UnsafeMutablePointer<Atomic<UInt64>>, path: String) -> StoreError? {
        let magic = words[SharedStateLayout.magicWord].load(ordering: .sequentiallyConsistent)
        guard magic == SharedStateLayout.magic else {
            return .corruption(
                path: path, location: .offset(0),
                detail: "the shared file does not start with the Cadmium shared-file magic")
        }
        let v = words[SharedStateLayout.versionWord].load(ordering: .sequentiallyConsistent)
        guard v == UInt64(SharedStateLayout.version) else {
            return .unsupportedFormatVersion(
                path: path, found: UInt32(truncatingIfNeeded: v), supported: SharedStateLayout.version)
        }
        return nil
    }

    /// Ends the initialisation of a store that opened alone: others may attach from now on.
    func finishAttach() throws {
        if openedAlone { _ = try region.lock(SharedStateLayout.attachLock, exclusive: false, wait: false) }
    }

    // MARK: - Writer

    func lockWriter() throws -> Bool {
        _ = try region.lock(SharedStateLayout.writerLock, exclusive: true, wait: true)
        // Anything odd now was left by a process that died holding this lock, or was written by
        // something that is not a store: the caller rebuilds the state from the files (SL1).
        var suspect = false
        let sequence = words[SharedStateLayout.sequenceWord].load(ordering: .sequentiallyConsistent)
        if sequence & 1 == 1 {
            words[SharedStateLayout.sequenceWord].store(sequence &+ 1, ordering: .sequentiallyConsistent)
            suspect = true
        }
        if words[SharedStateLayout.checkpointWord].load(ordering: .sequentiallyConsistent) != 0 {
            words[SharedStateLayout.checkpointWord].store(0, ordering: .sequentiallyConsistent)
            suspect = true
        }
        if Self.identityProblem(words, path: region.path) != nil || !stateChecksumHolds() {
            suspect = true
        }
        return suspect
    }

    func unlockWriter() { try? region.unlock(SharedStateLayout.writerLock) }

    func writerHeldByOther() -> Bool { (try? region.isLockedByOther(SharedStateLayout.writerLock)) ?? true }

    // MARK: - State

    @inline(__always)
    func stamp() -> (sequence: UInt64, durable: UInt64) {
        (
            words[SharedStateLayout.sequenceWord].load(ordering: .sequentiallyConsistent),
            words[SharedStateLayout.durableWord].load(ordering: .sequentiallyConsistent)
        )
    }

    private func stateWords() -> [UInt64] {
        SharedStateLayout.stateWords.map { words[$0].load(ordering: .sequentiallyConsistent) }
    }

    private func stateChecksumHolds() -> Bool {
        SharedStoreState.crc(stateWords())
            == words[SharedStateLayout.stateCRCWord].load(ordering: .sequentiallyConsistent)
    }

    func readState() -> (SharedStoreState, sequence: UInt64)? {
        // A publish takes well under a microsecond, but its writer can be descheduled in the middle
        // of one on a loaded machine: spin, then yield for up to 2 ms. A sequence odd for longer
        // belongs to a writer that died or is descheduled; the caller then takes the writer lock,
        // which a live publisher holds until it is done (SL1), and repairs or reads a whole state.
        var deadline: ContinuousClock.Instant?
        for attempt in 0..<1_000_000 {
            let before = words[SharedStateLayout.sequenceWord].load(ordering: .sequentiallyConsistent)
            if before & 1 == 1 {
                if attempt > 100 {
                    let now = ContinuousClock.now
                    if let deadline, now > deadline { return nil }
                    if deadline == nil { deadline = now + .milliseconds(2) }
                    sched_yield()
                }
                continue
            }
            let state = stateWords()
            let crc = words[SharedStateLayout.stateCRCWord].load(ordering: .sequentiallyConsistent)
            let after = words[SharedStateLayout.sequenceWord].load(ordering: .sequentiallyConsistent)
            guard before == after else { continue }
            guard SharedStoreState.crc(state) == crc else { return nil }
            return (SharedStoreState(words: state), before)
        }
        return nil
    }

    func durableCommit() -> CommitSequence {
        CommitSequence(words[SharedStateLayout.durableWord].load(ordering: .sequentiallyConsistent))
    }

    func publish(_ state: SharedStoreState) -> UInt64 {
        let sequence = words[SharedStateLayout.sequenceWord].load(ordering: .sequentiallyConsistent) | 1
        words[SharedStateLayout.sequenceWord].store(sequence, ordering: .sequentiallyConsistent)
        let values = state.words
        for (i, w) in SharedStateLayout.stateWords.enumerated() {
            words[w].store(values[i], ordering: .sequentiallyConsistent)
        }
        words[SharedStateLayout.stateCRCWord].store(SharedStoreState.crc(values), ordering: .sequentiallyConsistent)
        words[SharedStateLayout.sequenceWord].store(sequence &+ 1, ordering: .sequentiallyConsistent)
        return sequence &+ 1
    }

    func publishDurable(_ commit: CommitSequence) {
        var current = words[SharedStateLayout.durableWord].load(ordering: .sequentiallyConsistent)
        while current < commit.rawValue {
            let (done, found) = words[SharedStateLayout.durableWord].compareExchange(
                expected: current, desired: commit.rawValue, ordering: .sequentiallyConsistent)
            if done { return }
            current = found
        }
    }

    /// Lowers the durable word to `commit` (a rebuild under the writer lock: a damaged value may
    /// claim commits that do not exist).
    func resetDurable(_ commit: CommitSequence) {
        words[SharedStateLayout.durableWord].store(commit.rawValue, ordering: .sequentiallyConsistent)
    }

    // MARK: - Readers and checkpoints

    @inline(__always)
    func setReaderMark(_ oldest: CommitSequence?) {
        words[SharedStateLayout.markWord(slot: slot)].store(
            oldest.map { $0.rawValue &+ 1 } ?? 0, ordering: .sequentiallyConsistent)
    }

    @inline(__always)
    func checkpointOfOtherRunning() -> Bool {
        let running = words[SharedStateLayout.checkpointWord].load(ordering: .sequentiallyConsistent)
        return running != 0 && running != UInt64(slot + 1)
    }

    func beginCheckpoint() throws -> (oldest: CommitSequence?, othersReading: Bool) {
        words[SharedStateLayout.checkpointWord].store(UInt64(slot + 1), ordering: .sequentiallyConsistent)
        var oldest: CommitSequence?
        var reading = false
        for i in 0..<SharedStateLayout.slotCount where i != slot {
            let mark = words[SharedStateLayout.markWord(slot: i)].load(ordering: .sequentiallyConsistent)
            // SL2: a mark counts only while a live process holds its slot.
            guard mark != 0, try region.isLockedByOther(SharedStateLayout.slotLock(i)) else { continue }
            reading = true
            let snapshot = CommitSequence(mark &- 1)
            oldest = min(oldest ?? snapshot, snapshot)
        }
        return (oldest, reading)
    }

    func endCheckpoint() {
        words[SharedStateLayout.checkpointWord].store(0, ordering: .sequentiallyConsistent)
    }

    func detach() {
        setReaderMark(nil)
        words[SharedStateLayout.pidWord(slot: slot)].store(0, ordering: .sequentiallyConsistent)
        region.close()
    }
}
