import Foundation
import Testing
@testable import CdStore
import CdStoreTesting

/// A write transaction larger than its dirty-page limit spills pages to the WAL before its commit
/// record (SpillLog SP1–SP4, WriteTransaction R6): it keeps reading its own changes, readers never
/// see them, and a crash, power loss or rollback after a spill leaves the previous commit intact.
@Suite struct StoreSpillTests {
    static let path = "/data/spill.cdstore"
    static let limit = 16

    static func options(_ fs: any StoreFileSystem, durability: Durability = .full) -> StoreOptions {
        var o = StoreOptions(fileSystem: fs)
        o.pageSize = 4096
        o.cacheBytes = 4096 * 24
        o.spillThresholdBytes = 4096 * limit
        o.durability = durability
        o.checkpointThresholdBytes = 1 << 30
        return o
    }

    static func key(_ i: Int) -> [UInt8] { numberedKey(i) }

    /// The base commit: 200 keys in tree "t".
    static func base(_ store: Store) throws -> StoreModel { try writeNumberedBase(store, count: 200) }

    /// Puts, overwrites and deletes in random key order, many times the dirty-page limit, checking
    /// the transaction's own reads as it goes. Returns the model after it.
    static func bigChanges(
        _ tx: WriteTransaction, from start: StoreModel, seed: UInt64, operations: Int = 2500
    ) throws -> StoreModel {
        var rng = SeededGenerator(seed: seed)
        var model = start
        let t = try tx.tree("t")!
        let other = try tx.openOrCreateTree("other")
        model.trees["other", default: [:]] = model.trees["other"] ?? [:]
        for op in 0..<operations {
            let i = Int.random(in: 0..<3000, using: &rng)
            switch Int.random(in: 0..<10, using: &rng) {
            case 0:
                let had = try t.delete(key(i))
                #expect(had == (model.trees["t"]?[key(i)] != nil), "op \(op): delete of key \(i)")
                model.trees["t"]?[key(i)] = nil
            case 1:
                let v = randomBytes(Int.random(in: 3000...9000, using: &rng), &rng)  // overflow chains
                try other.put(key(i), v)
                model.trees["other"]?[key(i)] = v
            default:
                let v = Array("op \(op) ".utf8) + randomBytes(Int.random(in: 20...300, using: &rng), &rng)
                try t.put(key(i), v)
                model.trees["t"]?[key(i)] = v
            }
            // R6: between operations the transaction holds its limit plus what one operation dirtied.
            #expect(tx.dirtyPageCount <= limit + 24, "op \(op): \(tx.dirtyPageCount) dirty pages")
            if op % 97 == 0 {
                let probe = Int.random(in: 0..<3000, using: &rng)
                #expect(try t.get(key(probe)) == model.trees["t"]?[key(probe)], "op \(op): read back key \(probe)")
                #expect(try other.get(key(probe)) == model.trees["other"]?[key(probe)], "op \(op): other \(probe)")
            }
        }
        return model
    }

    static func expectClean(_ fs: any StoreFileSystem, _ label: String) throws {
        let report = try StoreVerifier.verify(path: path, options: VerifierOptions(fileSystem: fs))
        #expect(report.isClean, "\(label): \(report.problemsOnly.prefix(3))")
    }

    @Test(arguments: [Durability.full, .off])
    func aBigTransactionSpillsReadsItsOwnPagesAndCommits(durability: Durability) throws {
        let fs = FaultInjectingFileSystem(logsOperations: false)
        let store = try Store.open(path: Self.path, options: Self.options(fs, durability: durability))
        let before = try Self.base(store)
        let oldReader = try store.beginRead()
        let tx = try store.beginWrite()
        let after = try Self.bigChanges(tx, from: before, seed: 1)
        #expect(tx.spilledPageCount > Self.limit, "the transaction spilled \(tx.spilledPageCount) pages")
        // Readers, old and new, see the base commit only: spilled pages are in no index (SP1).
        let newReader = try store.beginRead()
        #expect(try snapshotModel(oldReader) == before)
        #expect(try snapshotModel(newReader) == before)
        newReader.end()
        try tx.commit()
        #expect(try snapshotModel(oldReader) == before, "a snapshot older than the commit keeps its pages")
        oldReader.end()
        #expect(try store.read { try firstDifference($0, after) } == nil)
        try store.close()
        try Self.expectClean(fs, "after close")
        let reopened = try Store.open(path: Self.path, options: Self.options(fs))
        #expect(try reopened.read { try firstDifference($0, after) } == nil)
        try reopened.read { tx in
            for name in try tx.treeNames() { _ = try BTreeChecker.check(tx.tree(name)!.btree, in: tx) }
        }
        try reopened.close()
    }

    /// A spilled commit that stays in the WAL (no checkpoint): recovery indexes its frames, the
    /// overwritten ones included, and finds the committed state.
    @Test func aSpilledCommitRecoversFromTheLog() throws {
        let fs = FaultInjectingFileSystem(logsOperations: false)
        let store = try Store.open(path: Self.path, options: Self.options(fs))
        let before = try Self.base(store)
        let tx = try store.beginWrite()
        let after = try Self.bigChanges(tx, from: before, seed: 2)
        try tx.commit()
        // Power loss right after the acknowledged commit: nothing was checkpointed.
        let rebooted = fs.powerLoss(seed: 1, mode: .dropUnsynced)
        try Self.expectClean(rebooted, "the WAL with a spilled commit")
        let reopened = try Store.open(path: Self.path, options: Self.options(rebooted))
        #expect(try reopened.read { try firstDifference($0, after) } == nil)
        try reopened.close()
        try Self.expectClean(rebooted, "after recovery")
    }

    /// R9: inside `withSequentialWrites` the transaction holds a quarter of its dirty-page limit
    /// (plus one operation's pages), and the whole limit again after it; what it wrote commits.
    @Test func sequentialWritesSpillAtAQuarterOfTheLimit() throws {
        let fs = FaultInjectingFileSystem(logsOperations: false)
        var o = Self.options(fs)
        o.spillThresholdBytes = 4096 * 64
        let store = try Store.open(path: Self.path, options: o)
        var model = try Self.base(store)
        let tx = try store.beginWrite()
        #expect(tx.dirtyPageLimit == 64)
        var most = 0
        try tx.withSequentialWrites {
            #expect(tx.dirtyPageLimit == 16)
            let t = try tx.tree("t")!
            for i in 0..<3000 {
                let v = Array("sequential \(i) ".utf8) + Array(repeating: UInt8(i % 251), count: 200)
                try t.put(Self.key(i), v)
                model.trees["t"]![Self.key(i)] = v
                most = max(most, tx.dirtyPageCount)
            }
        }
        #expect(most <= 16 + 8, "\(most) dirty pages under a limit of 16")
        #expect(tx.spilledPageCount > 64)
        #expect(tx.dirtyPageLimit == 64)
        try tx.commit()
        #expect(try store.read { try firstDifference($0, model) } == nil)
        try store.close()
        try Self.expectClean(fs, "after sequential writes")
    }

    @Test func rollbackAfterSpillLeavesNoTrace() throws {
        let fs = FaultInjectingFileSystem(logsOperations: false)
        let store = try Store.open(path: Self.path, options: Self.options(fs))
        let before = try Self.base(store)
        let tx = try store.beginWrite()
        _ = try Self.bigChanges(tx, from: before, seed: 3)
        #expect(tx.spilledPageCount > 0)
        tx.abort()
        #expect(try store.read { try firstDifference($0, before) } == nil)
        // The next commit, much shorter than the abandoned spill, overwrites its start; the rest of
        // the spill stays in the file after it and must never continue the log (SP2).
        var next = before
        try store.write { tx in try tx.tree("t")!.put(Self.key(5), Array("after rollback".utf8)) }
        next.trees["t"]![Self.key(5)] = Array("after rollback".utf8)
        #expect(try store.read { try firstDifference($0, next) } == nil)
        for mode: PowerLossMode in [.dropUnsynced, [.reorderUnsynced, .tearLast]] {
            let rebooted = fs.powerLoss(seed: 9, mode: mode)
            try Self.expectClean(rebooted, "\(mode.rawValue): the log after a rolled-back spill")
            let reopened = try Store.open(path: Self.path, options: Self.options(rebooted))
            #expect(try reopened.read { try firstDifference($0, next) } == nil, "mode \(mode.rawValue)")
            try reopened.close()
            try Self.expectClean(rebooted, "\(mode.rawValue): after recovery")
        }
        try store.close()
    }

    /// A spilled frame changed on disk between its spill and the commit is caught when the commit
    /// reads it back to compute its CRCs (SP5): the commit fails with corruption instead of giving
    /// the damaged image a valid CRC, and the store keeps the base commit.
    @Test func aSpilledFrameDamagedBeforeTheCommitFailsTheCommit() throws {
        let fs = FaultInjectingFileSystem(logsOperations: false)
        let store = try Store.open(path: Self.path, options: Self.options(fs))
        let before = try Self.base(store)
        let tx = try store.beginWrite()
        _ = try Self.bigChanges(tx, from: before, seed: 5, operations: 600)
        #expect(tx.spilledPageCount > 0)
        // One byte in the middle of the first spilled page, past the frame and image headers.
        let wal = try fs.open(Self.path + "-wal", mode: .readWrite)
        let offset = store.walEnd + UInt64(WALLayout.frameHeaderSize + PageImage.headerSize + 2000)
        var byte: [UInt8] = [0]
        _ = try byte.withUnsafeMutableBytes { try wal.read(into: $0, at: offset) }
        try wal.write([byte[0] ^ 0x5A], at: offset)
        try wal.close()
        #expect {
            try tx.commit()
        } throws: { error in
            guard case StoreError.corruption(_, _, let detail) = error else { return false }
            return detail.contains("differs from the version written")
        }
        #expect(try store.read { try firstDifference($0, before) } == nil)
        try store.close()
        try Self.expectClean(fs, "after a commit refused a damaged spill")
    }

    @Test func aFailedSpillWriteEndsTheTransactionAndKeepsTheStore() throws {
        let fs = FaultInjectingFileSystem(logsOperations: false)
        let store = try Store.open(path: Self.path, options: Self.options(fs))
        let before = try Self.base(store)
        fs.plan = .failEvery(.write, path: Self.path + "-wal", errno: ENOSPC)
        let tx = try store.beginWrite()
        var failed = false
        do { _ = try Self.bigChanges(tx, from: before, seed: 4) } catch { failed = true }
        #expect(failed, "a spill into a full disk must fail the operation that needed it")
        #expect(throws: StoreError.transactionFinished) { try tx.tree("t")!.put([1], [1]) }
        #expect(throws: StoreError.transactionFinished) { try tx.commit() }
        fs.plan = .none
        #expect(try store.read { try firstDifference($0, before) } == nil)
        try store.write { tx in try tx.tree("t")!.put(Self.key(1), [7]) }
        try store.close()
        try Self.expectClean(fs, "after a failed spill")
    }

    /// Crash at an operation of a workload whose big commit spills, lose power, recover: the store
    /// holds the last acknowledged commit (or the one in flight) and verifies clean. The crash
    /// points are a `CrashPointSample` of the workload's operations that holds the first and the
    /// last of every kind: each operation on each file in the spills, the big commit and the small
    /// commit, and the open, the first commit and the close as one kind each.
    /// `CADMIUM_SPILL_CRASH_POINTS` sets their number (20 in `make test`, every operation in `make
    /// crash-test`), `CADMIUM_CRASH_SEED` the seed of the sample (default: the workload's seed).
    @Test(arguments: testSeeds([21]))
    func crashDuringOrAfterSpillRecoversTheLastAcknowledgedCommit(seed: UInt64) throws {
        func run(
            _ fs: FaultInjectingFileSystem, _ record: inout StoreCrashTests.Workload,
            phaseEnded: (String) -> Void = { _ in }
        ) throws {
            var o = StoreCrashTests.options(fs)
            o.spillThresholdBytes = 4096 * Self.limit
            o.checkpointThresholdBytes = 1 << 30
            let store = try Store.open(path: StoreCrashTests.path, options: o)
            phaseEnded("open")
            var model = StoreModel()
            try store.write { tx in
                try tx.createTree("t").put([0], [0])
                model.trees["t"] = [[0]: [0]]
            }
            record.models.append(model)
            phaseEnded("first commit")
            let tx = try store.beginWrite()
            model = try Self.bigChanges(tx, from: model, seed: seed, operations: 300)
            phaseEnded("spills")
            try tx.commit()
            record.models.append(model)
            phaseEnded("big commit")
            try store.write { tx in try tx.tree("t")!.put([1], [1]) }
            model.trees["t"]![[1]] = [1]
            record.models.append(model)
            phaseEnded("small commit")
            try store.close()
            phaseEnded("close")
        }
        var reference = StoreCrashTests.Workload()
        let clean = FaultInjectingFileSystem()
        var phaseEnds: [(end: Int, phase: String)] = []
        try run(clean, &reference) { phaseEnds.append((clean.operationCount, $0)) }
        // The phases of the spill by operation and file; the open, the first commit and the close,
        // which StoreCrashTests crashes at every operation, as one kind each.
        let candidates = clean.operationLog.map { operation in
            let phase = phaseEnds.first { operation.sequence <= $0.end }?.phase ?? "after close"
            let detailed = ["spills", "big commit", "small commit"].contains(phase)
            return (
                point: operation.sequence, kind: detailed ? CrashPointSample.kind(of: operation, phase: phase) : phase
            )
        }
        let sample = CrashPointSample(
            candidates, count: CrashPointSample.count("CADMIUM_SPILL_CRASH_POINTS", default: 20),
            seed: CrashPointSample.seed(default: seed))
        let wal = StoreCrashTests.path.split(separator: "/").last! + "-wal"
        #expect(sample.kinds.contains("spills: write \(wal)"), "the workload spilled: \(sample.kinds)")
        #expect(sample.kinds.contains("big commit: sync \(wal)"), "\(sample.kinds)")
        let replay =
            "CADMIUM_SEED=\(seed) CADMIUM_CRASH_SEED=\(sample.seed) CADMIUM_SPILL_CRASH_POINTS=\(sample.count)"
        print("StoreSpillTests crash sweep, workload seed \(seed): \(sample) (replay with \(replay))")
        var checked = 0
        for point in sample.points {
            var rng = SeededGenerator(seed: seed &* 7919 &+ UInt64(point))
            let fs = FaultInjectingFileSystem(
                plan: .crash(atOperation: point, landing: Int.random(in: 0...8192, using: &rng)),
                logsOperations: false)
            var record = StoreCrashTests.Workload()
            do { try run(fs, &record) } catch  where fs.crash != nil {}
            let acknowledged = record.models.count - 1
            for mode in StoreCrashTests.powerLossModes {
                let label = "spill crash at op \(point)/\(clean.operationCount) mode \(mode.rawValue) (\(replay))"
                let state = try StoreCrashTests.recoveredState(
                    fs.powerLoss(seed: seed &+ UInt64(point), mode: mode), workload: reference,
                    acknowledged: acknowledged, label: label)
                #expect(state >= acknowledged, "\(label): lost acknowledged commit \(acknowledged)")
                checked += 1
            }
        }
        #expect(checked == sample.points.count * StoreCrashTests.powerLossModes.count)
    }
}
