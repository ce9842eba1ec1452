import Foundation
import Testing
@testable import CdStore
import CdStoreTesting

/// A commit writes its frames to the log a bounded buffer at a time (WriteTransaction R8): a commit
/// of many pages issues several writes, none much larger than `commitWriteBytes`, and a crash or
/// an I/O error between two of them leaves the store at the previous commit.
@Suite struct StoreCommitWriteTests {
    static let path = "/data/commit-write.cdstore"
    static let wal = path + "-wal"

    static func options(_ fs: any StoreFileSystem) -> StoreOptions {
        var o = StoreOptions(fileSystem: fs)
        o.pageSize = 4096
        o.cacheBytes = 4096 * 4096
        o.spillThresholdBytes = 4096 * 4096  // no spill: every frame goes through the commit's buffer
        o.checkpointThresholdBytes = 1 << 30
        return o
    }

    static func key(_ i: Int) -> [UInt8] { numberedKey(i) }

    /// The base commit: 50 small keys in tree "t".
    static func base(_ store: Store) throws -> StoreModel { try writeNumberedBase(store, count: 50) }

    /// A transaction whose frames are several times `commitWriteBytes`: random (incompressible)
    /// values, about 3 MiB of pages.
    static func bigChanges(_ tx: WriteTransaction, from start: StoreModel, seed: UInt64) throws -> StoreModel {
        var rng = SeededGenerator(seed: seed)
        var model = start
        let t = try tx.tree("t")!
        for i in 0..<1500 {
            let v = randomBytes(2000, &rng)
            try t.put(key(i), v)
            model.trees["t"]![key(i)] = v
        }
        return model
    }

    static func walWrites(_ fs: FaultInjectingFileSystem) -> [FileOperation] {
        fs.operationLog.filter { $0.kind == .write && $0.path == wal }
    }

    static func expectClean(_ fs: any StoreFileSystem, _ label: String) throws {
        let report = try StoreVerifier.verify(path: path, options: VerifierOptions(fileSystem: fs))
        #expect(report.isClean, "\(label): \(report.problemsOnly.prefix(3))")
    }

    @Test func aLargeCommitWritesItsFramesInBoundedWrites() throws {
        let fs = FaultInjectingFileSystem()
        let store = try Store.open(path: Self.path, options: Self.options(fs))
        let before = try Self.base(store)
        let already = Self.walWrites(fs).count
        var after = before
        try store.write { tx in after = try Self.bigChanges(tx, from: before, seed: 1) }
        let writes = Self.walWrites(fs).dropFirst(already)
        #expect(writes.count >= 3, "a commit of ~3 MiB of frames took \(writes.count) writes")
        // R8: a write holds at most the buffer's bound plus the frame that crossed it.
        let bound = WriteTransaction.commitWriteBytes + 4096 + 2 * WALLayout.frameHeaderSize + PageImage.headerSize
        for w in writes { #expect((w.length ?? 0) <= bound, "a commit write of \(w.length ?? 0) bytes") }
        // The writes follow one another: each starts where the previous one ended.
        for (a, b) in zip(writes, writes.dropFirst()) {
            #expect(a.offset.map { $0 + UInt64(a.length ?? 0) } == b.offset, "write at \(b.offset ?? 0)")
        }
        #expect(try store.read { try firstDifference($0, after) } == nil)
        try store.close()
        let rebooted = fs.powerLoss(seed: 3, mode: .dropUnsynced)
        let reopened = try Store.open(path: Self.path, options: Self.options(rebooted))
        #expect(try reopened.read { try firstDifference($0, after) } == nil)
        try reopened.close()
        try Self.expectClean(rebooted, "after recovering a commit written in several writes")
    }

    /// A crash at each of the commit's writes after its first (the earlier ones landed, torn or
    /// not): recovery finds the previous commit, whole, and the verifier finds nothing wrong.
    @Test(arguments: [2, 3], [0, 1000])
    func aCrashBetweenTheCommitsWritesKeepsThePreviousCommit(write: Int, landing: Int) throws {
        let fs = FaultInjectingFileSystem()
        let store = try Store.open(path: Self.path, options: Self.options(fs))
        let before = try Self.base(store)
        fs.plan = .crash(at: .write, occurrence: Self.walWrites(fs).count + write, path: Self.wal, landing: landing)
        #expect(throws: (any Error).self) {
            try store.write { tx in _ = try Self.bigChanges(tx, from: before, seed: 2) }
        }
        for mode: PowerLossMode in [.dropUnsynced, [.reorderUnsynced, .tearLast]] {
            let rebooted = fs.powerLoss(seed: 5, mode: mode)
            try Self.expectClean(rebooted, "\(mode.rawValue): crash at write \(write)")
            let reopened = try Store.open(path: Self.path, options: Self.options(rebooted))
            #expect(try reopened.read { try firstDifference($0, before) } == nil, "\(mode.rawValue), write \(write)")
            try reopened.close()
        }
    }

    /// A failed write in the middle of a commit fails the commit and keeps the store at the
    /// previous one; the next commit overwrites the frames that landed, and recovery after it
    /// finds exactly the base and that commit.
    @Test func aFailedWriteInTheMiddleOfACommitKeepsTheStore() throws {
        let fs = FaultInjectingFileSystem()
        let store = try Store.open(path: Self.path, options: Self.options(fs))
        let before = try Self.base(store)
        fs.plan = .fail(.write, occurrence: Self.walWrites(fs).count + 2, path: Self.wal, errno: EIO)
        var failed = false
        do { try store.write { tx in _ = try Self.bigChanges(tx, from: before, seed: 3) } } catch { failed = true }
        #expect(failed, "the commit's failed second write must fail the commit")
        fs.plan = .none
        #expect(try store.read { try firstDifference($0, before) } == nil)
        var next = before
        try store.write { tx in try tx.tree("t")!.put(Self.key(7), Array("after the failure".utf8)) }
        next.trees["t"]![Self.key(7)] = Array("after the failure".utf8)
        #expect(try store.read { try firstDifference($0, next) } == nil)
        try store.close()
        let rebooted = fs.powerLoss(seed: 7, mode: .dropUnsynced)
        try Self.expectClean(rebooted, "after a failed commit write")
        let reopened = try Store.open(path: Self.path, options: Self.options(rebooted))
        #expect(try reopened.read { try firstDifference($0, next) } == nil)
        try reopened.close()
    }
}
