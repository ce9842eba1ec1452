import Dispatch
import Foundation
import Testing
@testable import CdStore
import CdStoreTesting

/// Group commit (GroupCommit GC1–GC4): durable commits waiting for an fsync share one; none returns
/// before its frames are durable; readers see only durable commits; a failed fsync fails every
/// commit waiting for it and poisons the store.
@Suite struct StoreGroupCommitTests {
    static let path = "/data/group.cdstore"

    static func options(_ fs: any StoreFileSystem) -> StoreOptions {
        var o = StoreOptions(fileSystem: fs)
        o.pageSize = 4096
        o.durability = .full
        o.checkpointThresholdBytes = 1 << 30
        return o
    }

    static func key(_ writer: Int) -> [UInt8] { Array("writer-\(writer)".utf8) }

    /// Opens a store with one committed key, holds the WAL's syncs, starts writer 0 (whose sync
    /// then waits at the hold) and `followers` more writers, and returns once all of them have
    /// written their frames: every commit is written, none is durable.
    static func queueCommits(
        _ held: HeldSyncFileSystem, followers: Int, group: DispatchGroup, results: LockedState<[Int: Error?]>
    ) throws -> Store {
        let store = try Store.open(path: path, options: options(held))
        try store.write { tx in try tx.createTree("t").put(Array("base".utf8), [0]) }
        held.hold()
        func start(_ w: Int) {
            DispatchQueue.global().async(group: group) {
                do {
                    try store.write { tx in try tx.tree("t")!.put(key(w), [UInt8(w)]) }
                    results.withLock { $0[w] = .some(nil) }
                } catch {
                    results.withLock { $0[w] = .some(error) }
                }
            }
        }
        start(0)
        while held.waitingSyncs < 1 { usleep(1000) }  // writer 0 leads, its sync is held
        for w in 1...followers { start(w) }
        while store.lastWritten.rawValue < 3 + UInt64(followers) { usleep(1000) }  // all written
        return store
    }

    @Test func commitsWaitingForOneSyncShareTheNext() throws {
        let held = HeldSyncFileSystem(FaultInjectingFileSystem(logsOperations: false))
        let group = DispatchGroup()
        let results = LockedState<[Int: Error?]>([:])
        let followers = 6
        let store = try Self.queueCommits(held, followers: followers, group: group, results: results)
        let syncsBefore = held.walSyncs
        // Written but not durable: nobody has returned, readers do not see the commits (GC4), and
        // the next writer builds on them (Store P1).
        #expect(results.withLock { $0.isEmpty })
        #expect(store.lastCommit == CommitSequence(2))
        let early = try store.read { try $0.tree("t")!.get(Self.key(1)) }
        #expect(early == nil, "a reader saw a commit that is not durable yet")
        let tx = try store.beginWrite()
        #expect(tx.snapshot == CommitSequence(2 + UInt64(followers) + 1))
        #expect(try tx.tree("t")!.get(Self.key(followers)) == [UInt8(followers)])
        tx.abort()
        held.release()
        group.wait()
        // Writer 0's sync covered its own commit; the next leader's one sync covered all the others.
        #expect(held.walSyncs - syncsBefore == 2, "\(held.walSyncs - syncsBefore) syncs for \(followers + 1) commits")
        #expect(results.withLock { $0.count == followers + 1 && $0.values.allSatisfy { $0 == nil } })
        #expect(store.lastCommit == store.lastWritten)
        for w in 0...followers {
            let value = try store.read { try $0.tree("t")!.get(Self.key(w)) }
            #expect(value == [UInt8(w)])
        }
        try store.close()
    }

    /// The two halves of a commit: written (and the gate free) after the first, durable and visible
    /// only after the second.
    @Test func aCommitInTwoHalvesIsVisibleOnlyOnceFinished() throws {
        let held = HeldSyncFileSystem(FaultInjectingFileSystem(logsOperations: false))
        let store = try Store.open(path: Self.path, options: Self.options(held))
        try store.write { tx in try tx.createTree("t").put([0], [0]) }
        let tx = try store.beginWrite()
        try tx.tree("t")!.put([1], [1])
        let syncs = held.walSyncs
        let sequence = try #require(try tx.commitWithoutWaiting())
        #expect(held.walSyncs == syncs, "the first half must not sync")
        #expect(store.lastWritten == sequence)
        #expect(store.lastCommit < sequence)
        let early = try store.read { try $0.tree("t")!.get([1]) }
        #expect(early == nil)
        try store.finishCommit(sequence)
        #expect(held.walSyncs == syncs + 1)
        #expect(store.lastCommit == sequence)
        let late = try store.read { try $0.tree("t")!.get([1]) }
        #expect(late == [1])
        try store.close()
    }

    @Test func aFailedSyncFailsEveryWaitingCommitAndPoisonsTheStore() throws {
        let memory = FaultInjectingFileSystem(logsOperations: false)
        let held = HeldSyncFileSystem(memory)
        let group = DispatchGroup()
        let results = LockedState<[Int: Error?]>([:])
        let followers = 4
        let store = try Self.queueCommits(held, followers: followers, group: group, results: results)
        held.release(failing: true)
        group.wait()
        let errors = results.withLock { $0 }
        #expect(errors.count == followers + 1)
        for (w, error) in errors {
            #expect(error != nil, "writer \(w)'s commit returned although its sync failed")
        }
        // The leader gets the I/O error itself; the writers waiting for it, `poisoned`.
        let poisoned = errors.values.filter {
            if case StoreError.poisoned? = $0 as? StoreError { return true } else { return false }
        }
        #expect(poisoned.count == followers)
        #expect(throws: StoreError.self) { try store.write { tx in try tx.tree("t")!.put([1], [1]) } }
        #expect(throws: StoreError.self) { try store.read { _ in } }
        try? store.close()
        held.release()
        // A reopen finds the last durable commit and none of the failed ones.
        let reopened = try Store.open(path: Self.path, options: Self.options(memory))
        try reopened.read { tx in
            let t = try tx.tree("t")!
            #expect(try t.get(Array("base".utf8)) == [0])
            for w in 0...followers { #expect(try t.get(Self.key(w)) == nil, "failed commit of writer \(w) found") }
        }
        try reopened.close()
        let report = try StoreVerifier.verify(path: Self.path, options: VerifierOptions(fileSystem: memory))
        #expect(report.isClean, "\(report.problemsOnly.prefix(3))")
    }

    /// Many writers and readers on real files: every commit is applied exactly once (a shared
    /// counter shows lost updates), every reader sees a consistent durable snapshot, and no
    /// commit costs more than one sync.
    @Test func concurrentDurableWritersAndReadersStayConsistent() throws {
        let dir = try TemporaryDirectory()
        var o = StoreOptions()
        o.pageSize = 4096
        o.durability = .full
        o.checkpointThresholdBytes = 64 * 1024  // checkpoints and WAL resets while commits wait
        let store = try Store.open(path: dir.path("group.cdstore"), options: o)
        try store.write { tx in try tx.createTree("t").put(Array("total".utf8), Array("0".utf8)) }
        // Syncs of the setup (the new store's first commit, the tree's) are not the writers'.
        let setupSyncs = store.groupCommit.syncs
        let writers = 8, commits = 25
        let failures = LockedState<[String]>([])
        let done = LockedState(0)
        let group = DispatchGroup()
        for w in 0..<writers {
            DispatchQueue.global().async(group: group) {
                defer { done.withLock { $0 += 1 } }
                for i in 0..<commits {
                    do {
                        try store.write { tx in
                            let t = try tx.tree("t")!
                            let total = Int(String(decoding: try t.get(Array("total".utf8))!, as: UTF8.self))!
                            try t.put(Array("total".utf8), Array(String(total + 1).utf8))
                            try t.put(Array("w\(w)-\(i)".utf8), [UInt8(w)])
                        }
                        // Acknowledged means visible to this thread's next reader.
                        let seen = try store.read { try $0.tree("t")!.get(Array("w\(w)-\(i)".utf8)) }
                        if seen != [UInt8(w)] { failures.withLock { $0.append("w\(w)-\(i) not visible") } }
                    } catch { failures.withLock { $0.append("writer \(w) commit \(i): \(error)") } }
                }
            }
        }
        DispatchQueue.global().async(group: group) {
            while done.withLock({ $0 }) < writers {
                do {
                    try store.read { tx in
                        let t = try tx.tree("t")!
                        let total = Int(String(decoding: try t.get(Array("total".utf8))!, as: UTF8.self))!
                        var keys = 0
                        try t.scan(from: Array("w".utf8)) { _, _ in
                            keys += 1; return true
                        }
                        if keys != total { failures.withLock { $0.append("snapshot: total \(total), \(keys) keys") } }
                    }
                } catch { failures.withLock { $0.append("reader: \(error)") } }
            }
        }
        group.wait()
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0.prefix(5) })")
        let total = try store.read { tx in try tx.tree("t")!.get(Array("total".utf8)) }
        #expect(total == Array(String(writers * commits).utf8))
        // Every sync makes at least one more commit durable (GroupCommit GC1), so the writers'
        // commits need at most one sync each, however their waits interleave.
        #expect(store.groupCommit.syncs - setupSyncs <= writers * commits)
        try store.close()
        let report = try StoreVerifier.verify(path: dir.path("group.cdstore"))
        #expect(report.isClean, "\(report.problemsOnly.prefix(3))")
    }
}
