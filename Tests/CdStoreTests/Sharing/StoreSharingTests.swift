import Foundation
import Testing
@testable import CdStore

/// Two stores on one file are two processes (StoreCoordination SC1–SC3, Store+Refresh MP1–MP4):
/// on an in-memory file system (its shared regions are shared by every handle) and on real files
/// (open-file-description locks conflict between two descriptors of one process too).
@Suite struct StoreSharingTests {
    static func options(_ fs: any StoreFileSystem, threshold: UInt64 = 1 << 20) -> StoreOptions {
        var o = StoreOptions(fileSystem: fs)
        o.pageSize = 4096
        o.durability = .normal
        o.checkpointThresholdBytes = threshold
        return o
    }

    static func value(_ store: Store, _ key: String) throws -> String? {
        try store.read { tx in try tx.tree("t")?.get(Array(key.utf8)).map { String(decoding: $0, as: UTF8.self) } }
    }

    static func put(_ store: Store, _ key: String, _ value: String) throws {
        try store.write { tx in
            try tx.openOrCreateTree("t").put(Array(key.utf8), Array(value.utf8))
        }
    }

    @Test(arguments: ["memory", "posix"])
    func eachStoreSeesTheOthersCommitsFromItsNextTransaction(_ kind: String) throws {
        let dir = try TemporaryDirectory()
        let fs: any StoreFileSystem = kind == "memory" ? InMemoryFileSystem() : POSIXFileSystem()
        let path = kind == "memory" ? "/s" : dir.path("s")
        let a = try Store.open(path: path, options: Self.options(fs))
        let b = try Store.open(path: path, options: Self.options(fs))
        try Self.put(a, "x", "1")
        #expect(try Self.value(b, "x") == "1")
        try Self.put(b, "x", "2")
        try Self.put(b, "y", "3")
        #expect(try Self.value(a, "x") == "2")
        #expect(try Self.value(a, "y") == "3")
        // Writers alternate, each building on the other's last commit: nothing is lost.
        for i in 0..<200 {
            try Self.put(i % 3 == 0 ? a : b, "k\(i)", "\(i)")
        }
        for i in 0..<200 {
            #expect(try Self.value(a, "k\(i)") == "\(i)")
            #expect(try Self.value(b, "k\(i)") == "\(i)")
        }
        #expect(a.lastCommit == b.lastCommit)
        try a.close()
        try Self.put(b, "z", "4")
        try b.close()
        let c = try Store.open(path: path, options: Self.options(fs))
        #expect(try Self.value(c, "z") == "4")
        #expect(try Self.value(c, "k199") == "199")
        try c.close()
    }

    @Test func aSnapshotHeldAcrossAnotherStoresCheckpointSeesNoChange() throws {
        let fs = InMemoryFileSystem()
        let a = try Store.open(path: "/s", options: Self.options(fs))
        let b = try Store.open(path: "/s", options: Self.options(fs))
        for i in 0..<50 { try Self.put(a, "k\(i)", "old\(i)") }
        let held = try b.beginRead()
        let before = try snapshotModel(held)
        // Many commits and checkpoints by the other store, rewriting every key several times.
        for round in 0..<6 {
            for i in 0..<50 {
                try Self.put(a, "k\(i)", "new\(round)-\(i)-" + String(repeating: "v", count: round * 30))
            }
            let result = try a.checkpoint()
            #expect(!result.walReset, "the WAL was reset while another store's reader needed it")
            #expect(result.pageFileCommit <= held.snapshot, "the checkpoint passed another store's reader")
        }
        #expect(try snapshotModel(held) == before)
        held.end()
        // With the reader gone the next checkpoint may empty the log, and the other store reads on.
        let result = try a.checkpoint()
        #expect(result.walReset)
        #expect(try Self.value(b, "k7") == "new5-7-" + String(repeating: "v", count: 150))
        try Self.put(b, "after", "reset")
        #expect(try Self.value(a, "after") == "reset")
        try a.close()
        try b.close()
    }

    @Test func transfersBetweenAccountsKeepTheirTotalForEveryReader() async throws {
        let fs = InMemoryFileSystem()
        let stores = try (0..<3).map { _ in try Store.open(path: "/bank", options: Self.options(fs, threshold: 32_768))
        }
        let accounts = 20
        try stores[0].write { tx in
            let t = try tx.createTree("acct")
            for i in 0..<accounts { try t.put(Array("a\(i)".utf8), Array("100".utf8)) }
        }
        func total(_ tx: Transaction) throws -> Int {
            var sum = 0
            try tx.tree("acct")!.scan { _, v in
                sum += Int(String(decoding: v, as: UTF8.self))!; return true
            }
            return sum
        }
        let acknowledged = LockedState<[String: Int]>([:])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (n, store) in stores.enumerated() {
                group.addTask {
                    var rng = SeededGenerator(seed: UInt64(n + 1))
                    for round in 0..<60 {
                        let from = Int.random(in: 0..<accounts, using: &rng)
                        let to = Int.random(in: 0..<accounts, using: &rng)
                        try store.write { tx in
                            let t = try tx.tree("acct")!
                            let f = Int(String(decoding: try t.get(Array("a\(from)".utf8))!, as: UTF8.self))!
                            let g = Int(String(decoding: try t.get(Array("a\(to)".utf8))!, as: UTF8.self))!
                            if from != to {
                                try t.put(Array("a\(from)".utf8), Array("\(f - 1)".utf8))
                                try t.put(Array("a\(to)".utf8), Array("\(g + 1)".utf8))
                            }
                            try tx.openOrCreateTree("log").put(Array("s\(n)-\(round)".utf8), [1])
                        }
                        acknowledged.withLock { $0["s\(n)"] = round }
                        if round % 7 == 0 {
                            let sum = try store.read { try total($0) }
                            #expect(sum == accounts * 100, "store \(n) read a total of \(sum)")
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        for store in stores {
            try store.read { tx in
                #expect(try total(tx) == accounts * 100)
                let log = try tx.tree("log")!
                for n in 0..<3 {
                    let last = acknowledged.withLock { $0["s\(n)"] }!
                    for round in 0...last { #expect(try log.get(Array("s\(n)-\(round)".utf8)) != nil) }
                }
            }
        }
        for store in stores { try store.close() }
    }

    @Test func aStoreOpenForSeveralProcessesRefusesAnExclusiveOpenAndTheOtherWayRound() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("s")
        var exclusive = Self.options(POSIXFileSystem())
        exclusive.sharing = .exclusive
        exclusive.lockWaitSeconds = 0
        var shared = Self.options(POSIXFileSystem())
        shared.lockWaitSeconds = 0
        let a = try Store.open(path: path, options: shared)
        #expect(throws: StoreError.locked(path: path)) { try Store.open(path: path, options: exclusive) }
        try a.close()
        let old = try Store.open(path: path, options: exclusive)
        #expect(throws: StoreError.locked(path: path)) { try Store.open(path: path, options: shared) }
        try old.close()
    }
}
