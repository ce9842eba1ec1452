// Power loss on the fault-injecting file system: what survives (durable data and directory
// entries only), and the seeded damage modes that let some unsynced writes through.

import Testing
@testable import CdStore
import CdStoreTesting

extension IOTests {
    @Suite struct PowerLoss {
        /// A durable, empty-named file "db" holding `durable`, with `pending` writes not synced.
        private func fileSystem(durable: [UInt8], pending: [(UInt64, [UInt8])]) throws -> FaultInjectingFileSystem {
            let fs = FaultInjectingFileSystem()
            let file = try fs.open("dir/db", mode: .createIfMissing)
            try fs.syncDirectory(containing: "dir/db")
            try file.write(durable, at: 0)
            try file.sync()
            for (offset, data) in pending { try file.write(data, at: offset) }
            return fs
        }

        @Test func unsyncedWritesAndTruncatesAreDropped() throws {
            let fs = FaultInjectingFileSystem()
            let file = try fs.open("db", mode: .createIfMissing)
            try fs.syncDirectory(containing: "db")
            try file.write(bytes("synced"), at: 0)
            try file.sync()
            try file.write(bytes("LOST"), at: 0)
            try file.write(bytes("tail"), at: 100)
            #expect(fs.survivingFiles(seed: 1) == ["db": bytes("synced")])
            try file.truncate(to: 2)
            #expect(fs.survivingFiles(seed: 1) == ["db": bytes("synced")])
            #expect(fs.invariantViolations() == [])

            let rebooted = fs.powerLoss(seed: 1)
            let reopened = try rebooted.open("db", mode: .readOnly)
            #expect(try readAll(reopened) == bytes("synced"))
            #expect(rebooted.operationCount == 3)  // open, size, read: a fresh count
            // Everything in the rebooted file system is durable.
            #expect(rebooted.survivingFiles(seed: 9) == ["db": bytes("synced")])
        }

        @Test func createdFileWithoutDirectorySyncDisappears() throws {
            let fs = FaultInjectingFileSystem()
            let file = try fs.open("dir/new", mode: .createIfMissing)
            try file.write(bytes("data"), at: 0)
            try file.sync()  // the data is durable, but its name is not
            #expect(fs.survivingFiles(seed: 0) == [:])
            try fs.syncDirectory(containing: "other/x")  // another directory does not help
            #expect(fs.survivingFiles(seed: 0) == [:])
            try fs.syncDirectory(containing: "dir/anything")
            #expect(fs.survivingFiles(seed: 0) == ["dir/new": bytes("data")])
        }

        @Test func removalWithoutDirectorySyncIsUndone() throws {
            let fs = FaultInjectingFileSystem(files: ["wal": bytes("frames")])
            try fs.remove("wal")
            #expect(!fs.fileExists("wal"))
            #expect(fs.powerLoss(seed: 0).fileExists("wal"))
            let recreated = try fs.open("wal", mode: .createIfMissing)
            try recreated.write(bytes("new"), at: 0)
            try recreated.sync()
            #expect(fs.survivingFiles(seed: 0) == ["wal": bytes("frames")])
            #expect(fs.invariantViolations() == [])
            try fs.syncDirectory(containing: "wal")
            #expect(fs.survivingFiles(seed: 0) == ["wal": bytes("new")])
            try fs.remove("wal")
            try fs.syncDirectory(containing: "wal")
            #expect(fs.survivingFiles(seed: 0) == [:])
        }

        @Test func powerLossAfterACrashKeepsOnlyDurableState() throws {
            let fs = try fileSystem(durable: bytes("committed"), pending: [])
            fs.plan = .crash(at: .sync, occurrence: 2)
            let file = try fs.open("dir/db", mode: .readWrite)
            try file.write(bytes("COMMITTED"), at: 0)
            #expect(throws: SimulatedCrash.self) { try file.sync() }
            #expect(fs.powerLoss(seed: 3).contents(of: "dir/db") == bytes("committed"))
        }

        @Test(arguments: [0, 1, 2, 99] as [UInt64])
        func reorderKeepsARandomSubsetDeterministically(seed: UInt64) throws {
            // 16 sectors of zeros made durable, then each sector rewritten without a sync.
            let sectors = 16
            let pending = (0..<sectors).map { (UInt64($0 * 512), [UInt8](repeating: UInt8($0 + 1), count: 512)) }
            let fs = try fileSystem(durable: [UInt8](repeating: 0, count: sectors * 512), pending: pending)
            let survived = fs.survivingFiles(seed: seed, mode: .reorderUnsynced)
            #expect(survived == fs.survivingFiles(seed: seed, mode: .reorderUnsynced), "seed \(seed)")
            let data = try #require(survived["dir/db"])
            #expect(data.count == sectors * 512)
            for sector in 0..<sectors {
                let content = Set(data[(sector * 512)..<((sector + 1) * 512)])
                #expect(content == [0] || content == [UInt8(sector + 1)], "seed \(seed), sector \(sector)")
            }
        }

        @Test func reorderDiffersAcrossSeedsAndReordersOverlappingWrites() throws {
            // Two unsynced writes to the same sector: which one wins depends on the order.
            let pending = (1...8).map { (UInt64(0), [UInt8](repeating: UInt8($0), count: 8)) }
            let fs = try fileSystem(durable: [UInt8](repeating: 0, count: 8), pending: pending)
            let outcomes = Set(
                (0..<64 as Range<UInt64>).map { fs.survivingFiles(seed: $0, mode: .reorderUnsynced)["dir/db"]! })
            #expect(outcomes.count > 3)
            #expect(outcomes.isSubset(of: Set((0...8).map { [UInt8](repeating: UInt8($0), count: 8) })))
        }

        @Test(arguments: [0, 1, 7, 1234] as [UInt64])
        func tearLastCutsAtASectorBoundary(seed: UInt64) throws {
            let write = (0..<4096).map { UInt8(truncatingIfNeeded: $0 * 7 + 1) }
            let fs = try fileSystem(durable: [], pending: [(100, write)])
            let data = try #require(fs.survivingFiles(seed: seed, mode: .tearLast)["dir/db"])
            #expect(data == fs.survivingFiles(seed: seed, mode: .tearLast)["dir/db"], "seed \(seed)")
            #expect(data.count % 512 == 0 && data.count > 100 && data.count < 4196, "seed \(seed): \(data.count)")
            #expect(Array(data[..<100]) == [UInt8](repeating: 0, count: 100))
            #expect(Array(data[100...]) == Array(write[..<(data.count - 100)]))
        }

        @Test func tearLastOfAWriteInsideOneSectorLosesIt() throws {
            let fs = try fileSystem(durable: bytes("old"), pending: [(0, bytes("new"))])
            for seed in 0..<8 as Range<UInt64> {
                #expect(fs.survivingFiles(seed: seed, mode: .tearLast)["dir/db"] == bytes("old"))
            }
        }

        @Test func tearLastCombinesWithReorder() throws {
            let pending = (0..<4).map { (UInt64($0 * 1024), [UInt8](repeating: UInt8($0 + 1), count: 1024)) }
            let fs = try fileSystem(durable: [], pending: pending)
            let mode: PowerLossMode = [.reorderUnsynced, .tearLast]
            for seed in 0..<16 as Range<UInt64> {
                let data = fs.survivingFiles(seed: seed, mode: mode)["dir/db"]!
                #expect(data == fs.survivingFiles(seed: seed, mode: mode)["dir/db"]!)
                // The last write (sector 3072..<4096) lands torn: at most its first 512 bytes.
                #expect(data.count <= 3584, "seed \(seed)")
            }
        }

        @Test func tornPrefixOffsets() {
            var random = SplitMix64(seed: 5)
            #expect(FaultInjectingFileSystem.tornPrefix(offset: 0, count: 512, using: &random) == 0)
            #expect(FaultInjectingFileSystem.tornPrefix(offset: 0, count: 513, using: &random) == 512)
            #expect(FaultInjectingFileSystem.tornPrefix(offset: 500, count: 100, using: &random) == 12)
            #expect(FaultInjectingFileSystem.tornPrefix(offset: 10, count: 10, using: &random) == 0)
        }
    }
}
