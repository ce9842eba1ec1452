import Foundation
import Testing
@testable import CdStore
import CdStoreTesting

/// Crash simulation: run a workload on the fault-injecting file system, "crash" at every Nth I/O
/// operation (a torn write where the crash hits a write), lose power (unsynced writes dropped, or
/// a random subset applied in random order with the last one torn), reopen, and check that the
/// store equals the model as of the last acknowledged commit — or the commit in flight, whose
/// frames may have become durable before its acknowledgement — and that every tree reads cleanly.
@Suite struct StoreCrashTests {
    struct Workload {
        /// The model after each acknowledged commit; index 0 is the empty store.
        var models: [StoreModel] = [StoreModel()]
    }

    static let path = "/data/crash.cdstore"

    static func options(_ fs: any StoreFileSystem) -> StoreOptions {
        var o = StoreOptions(fileSystem: fs)
        o.pageSize = 4096
        o.durability = .full
        o.cacheBytes = 4096 * 32
        o.checkpointThresholdBytes = 24_000  // several checkpoints and WAL resets per run
        return o
    }

    /// Deterministic commits: puts (some overflowing), deletes, a tree created and dropped.
    static func run(on fs: any StoreFileSystem, seed: UInt64, commits: Int, record: inout Workload) throws {
        var rng = SeededGenerator(seed: seed)
        let store = try Store.open(path: path, options: options(fs))
        var model = StoreModel()
        for c in 0..<commits {
            var next = model
            try store.write { tx in
                for _ in 0..<Int.random(in: 1...12, using: &rng) {
                    let name = ["a", "b"][Int.random(in: 0...1, using: &rng)]
                    let k = Array("key-\(Int.random(in: 0..<150, using: &rng))".utf8)
                    if Int.random(in: 0..<4, using: &rng) == 0 {
                        if let t = try tx.tree(name) { try t.delete(k); next.trees[name]?[k] = nil }
                    } else {
                        let big = Int.random(in: 0..<15, using: &rng) == 0
                        let v =
                            big
                            ? randomBytes(6000, &rng)
                            : Array("commit \(c) value \(Int.random(in: 0..<1_000_000, using: &rng))".utf8)
                        try tx.openOrCreateTree(name).put(k, v)
                        next.trees[name, default: [:]][k] = v
                    }
                }
                if c == commits / 2 { _ = try tx.createTree("temp"); next.trees["temp"] = [:] }
                if c == commits / 2 + 3 { try tx.dropTree("temp"); next.trees["temp"] = nil }
            }
            model = next
            record.models.append(model)
        }
        try store.close()
    }

    /// Opens the store after a crash and returns which acknowledged state it holds, or fails.
    static func recoveredState(
        _ fs: any StoreFileSystem, workload: Workload, acknowledged: Int, label: String
    ) throws -> Int {
        // The files as the crash left them: a torn WAL tail is a note, anything else a problem.
        // (A crash before the page file's creation was synced leaves no store: open creates it.)
        if fs.fileExists(path) {
            let crashed = try StoreVerifier.verify(path: path, options: VerifierOptions(fileSystem: fs))
            #expect(crashed.isClean, "\(label): verifier before recovery: \(crashed.problemsOnly.prefix(3))")
        }
        let store = try Store.open(path: path, options: options(fs))
        defer {
            try? store.close()
            if let recovered = try? StoreVerifier.verify(path: path, options: VerifierOptions(fileSystem: fs)) {
                #expect(recovered.isClean, "\(label): verifier after recovery: \(recovered.problemsOnly.prefix(3))")
            } else {
                Issue.record("\(label): the verifier could not open the recovered store")
            }
        }
        let candidates = [acknowledged, acknowledged + 1].filter { $0 < workload.models.count }
        let found = try store.read { tx -> Int? in
            let held = try snapshotModel(tx)
            return candidates.first { workload.models[$0] == held }
        }
        guard let found else {
            let diff = try store.read { try firstDifference($0, workload.models[acknowledged]) }
            Issue.record(
                "\(label): recovered store matches neither commit \(acknowledged) nor the one in flight: \(diff ?? "?")"
            )
            return -1
        }
        // The recovered store must take new commits and reopen again.
        try store.write { tx in try tx.openOrCreateTree("after").put([1], [2]) }
        return found
    }

    @Test(arguments: testSeeds([11, 12]))
    func crashAtEveryOperationRecoversLastAcknowledgedCommit(seed: UInt64) throws {
        let commits = 14
        var reference = Workload()
        let clean = FaultInjectingFileSystem(logsOperations: false)
        try Self.run(on: clean, seed: seed, commits: commits, record: &reference)
        let total = clean.operationCount
        #expect(total > 100)
        var rng = SeededGenerator(seed: seed &* 7919)
        var tried = 0
        for point in 1...total {
            let landing = Int.random(in: 0...8192, using: &rng)
            let fs = FaultInjectingFileSystem(plan: .crash(atOperation: point, landing: landing), logsOperations: false)
            var record = Workload()
            do {
                try Self.run(on: fs, seed: seed, commits: commits, record: &record)
            } catch  where fs.crash != nil {
                // The process "died" (possibly reported through a poisoned store).
            }
            let acknowledged = record.models.count - 1
            for mode: PowerLossMode in Self.powerLossModes {
                let rebooted = fs.powerLoss(seed: seed &+ UInt64(point), mode: mode)
                let label = "seed \(seed) crash at op \(point)/\(total) mode \(mode.rawValue)"
                let state = try Self.recoveredState(
                    rebooted, workload: reference, acknowledged: acknowledged, label: label)
                #expect(state >= acknowledged, "\(label): lost acknowledged commit \(acknowledged)")
                tried += 1
            }
        }
        #expect(tried == Self.powerLossModes.count * total)
        print(
            "StoreCrashTests seed \(seed): \(total) crash points × \(Self.powerLossModes.count) power-loss modes "
                + "= \(tried) recoveries checked (replay with CADMIUM_SEED=\(seed))"
        )
    }

    /// Unsynced writes dropped; dropped but the last one torn; a random subset landed in random
    /// order with the last one torn.
    static let powerLossModes: [PowerLossMode] = [.dropUnsynced, .tearLast, [.reorderUnsynced, .tearLast]]

    /// Power loss in `normal` durability may lose recent commits but never corrupts: the
    /// recovered store is always one of the committed states.
    @Test func normalDurabilityLosesOnlyATailOfCommits() throws {
        var reference = Workload()
        let clean = FaultInjectingFileSystem(logsOperations: false)
        try Self.run(on: clean, seed: 5, commits: 10, record: &reference)
        let total = clean.operationCount
        for point in stride(from: 1, through: total, by: 3) {
            let fs = FaultInjectingFileSystem(plan: .crash(atOperation: point, landing: 700), logsOperations: false)
            var o = Self.options(fs)
            o.durability = .normal
            var record = Workload()
            do {
                let store = try Store.open(path: Self.path, options: o)
                var rng = SeededGenerator(seed: 5)
                for c in 0..<10 {
                    try store.write { tx in
                        try tx.openOrCreateTree("n").put(Array("k\(c)".utf8), randomBytes(300, &rng))
                    }
                }
                try store.close()
            } catch  where fs.crash != nil {
            }
            _ = record
            let rebooted = fs.powerLoss(seed: UInt64(point), mode: [.reorderUnsynced, .tearLast])
            var ro = Self.options(rebooted)
            ro.durability = .normal
            let store = try Store.open(path: Self.path, options: ro)
            let keys = try store.read { tx -> [String] in
                var keys: [String] = []
                try tx.tree("n")?.scan { k, _ in
                    keys.append(String(decoding: k, as: UTF8.self)); return true
                }
                return keys
            }
            // Whatever survived is a prefix of the commits: k0 … k(n-1) for some n.
            let n = keys.count
            #expect(
                Set(keys) == Set((0..<n).map { "k\($0)" }),
                "crash at \(point): recovered keys \(keys) are not a prefix of the commits")
            try store.close()
            record = Workload()
        }
    }
}
