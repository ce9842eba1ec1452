import Foundation
import Testing
@testable import CdStore
import CdStoreTesting

/// I/O errors at every step: EIO and ENOSPC on each operation of a workload in turn (a sample of
/// every kind of operation in `make test`, every operation in `make crash-test`). The failing
/// call reports a typed `StoreError`; the store stays at its previous commit; the process goes on
/// (or, after a durability failure, reopens) without losing anything acknowledged.
@Suite struct StoreIOErrorTests {
    static let path = "/io/errors.cdstore"

    static func options(_ fs: any StoreFileSystem) -> StoreOptions {
        var o = StoreOptions(fileSystem: fs)
        o.pageSize = 4096
        o.cacheBytes = 4096 * 16  // small: reads go to the files, so read faults matter
        o.checkpointThresholdBytes = 20_000
        return o
    }

    /// Runs `commits` commits, reopening after poison or a failed open, and returns the model of
    /// what was acknowledged. Every error must be a `StoreError`.
    static func workload(_ fs: FaultInjectingFileSystem, commits: Int, label: String) throws -> StoreModel {
        var acknowledged = StoreModel()
        var store: Store? = nil
        var c = 0
        var attempts = 0
        while c < commits && attempts < commits * 3 {
            attempts += 1
            do {
                if store == nil { store = try Store.open(path: path, options: options(fs)) }
                var next = acknowledged
                try store!.write { tx in
                    let t = try tx.openOrCreateTree("t")
                    for i in 0..<8 {
                        let k = Array("k\((c * 37 + i * 11) % 120)".utf8)
                        let v =
                            Array("commit \(c) item \(i) ".utf8) + [UInt8](repeating: UInt8(c), count: (c * 131) % 3000)
                        try t.put(k, v)
                        next.trees["t", default: [:]][k] = v
                    }
                    if c % 3 == 2,
                        let first = next.trees["t"]?.keys.sorted(by: { $0.lexicographicallyPrecedes($1) }).first
                    {
                        try t.delete(first)
                        next.trees["t"]?[first] = nil
                    }
                }
                acknowledged = next
                c += 1
                // A read after each commit sees exactly what was acknowledged.
                if let diff = try store!.read({ try firstDifference($0, acknowledged) }) {
                    Issue.record("\(label): after commit \(c): \(diff)")
                }
            } catch let error as StoreError {
                if case .poisoned = error { try? store?.close(); store = nil }
                if store != nil, case .io = error {}  // a failed commit or read: carry on with the same handle
                if store == nil { continue }
                // The handle is still usable: it must show the previous commit.
                if let s = store, let diff = try? s.read({ try firstDifference($0, acknowledged) }) {
                    Issue.record("\(label): after failed commit \(c): \(diff)")
                }
            }
        }
        try? store?.close()
        return acknowledged
    }

    /// The operations of the clean workload that a sweep fails: a `CrashPointSample` holding the
    /// first and the last operation of each kind on each file (reads included: with a small cache
    /// a failed read matters), `CADMIUM_IO_ERROR_POINTS` of them (40 in `make test`, every
    /// operation in `make crash-test`), drawn with `CADMIUM_CRASH_SEED`; `oddOnly` keeps the
    /// odd-numbered operations only. Prints the sample and how to replay it.
    static func sample(_ clean: FaultInjectingFileSystem, _ sweep: String, oddOnly: Bool = false) -> CrashPointSample {
        let candidates = clean.operationLog.filter { !oddOnly || $0.sequence % 2 == 1 }.map { operation in
            (point: operation.sequence, kind: "\(operation.kind.rawValue) \(operation.path)")
        }
        let sample = CrashPointSample(
            candidates, count: CrashPointSample.count("CADMIUM_IO_ERROR_POINTS", default: 40),
            seed: CrashPointSample.seed(default: 0x10E2))
        print(
            "StoreIOErrorTests \(sweep): \(sample) (replay with CADMIUM_CRASH_SEED=\(sample.seed) "
                + "CADMIUM_IO_ERROR_POINTS=\(sample.count))")
        return sample
    }

    @Test(arguments: [EIO, ENOSPC])
    func everyOperationFailingOnceLosesNothingAcknowledged(errno code: Int32) throws {
        let clean = FaultInjectingFileSystem()
        _ = try Self.workload(clean, commits: 10, label: "clean")
        let total = clean.operationCount
        let sample = Self.sample(clean, "errno \(code) once")
        var faults = 0
        for op in sample.points {
            let fs = FaultInjectingFileSystem(plan: .fail(operation: op, errno: code), logsOperations: false)
            let label = "errno \(code) at op \(op)/\(total)"
            let acknowledged = try Self.workload(fs, commits: 10, label: label)
            faults += 1
            // Reopen on a healthy file system: everything acknowledged is there.
            let store = try Store.open(path: Self.path, options: Self.options(fs))
            let diff = try store.read { try firstDifference($0, acknowledged) }
            #expect(diff == nil, "\(label): after reopen: \(diff ?? "")")
            try store.close()
            let report = try StoreVerifier.verify(path: Self.path, options: VerifierOptions(fileSystem: fs))
            #expect(report.isClean, "\(label): verifier after reopen: \(report.problemsOnly.prefix(3))")
        }
        #expect(faults == sample.points.count)
        #expect(sample.kinds.count >= 10, "\(sample.kinds)")
    }

    /// SQLite's second loop: from operation N on, *every* operation fails (a disk that is gone,
    /// a volume that stays full). Each call reports a typed error; once the disk is back, a
    /// reopen recovers everything acknowledged before the failure and verifies clean.
    @Test(arguments: [EIO, ENOSPC])
    func everyOperationFromOneOnFailingLosesNothingAcknowledged(errno code: Int32) throws {
        let clean = FaultInjectingFileSystem()
        _ = try Self.workload(clean, commits: 10, label: "clean")
        let total = clean.operationCount
        let sample = Self.sample(clean, "errno \(code) from one on", oddOnly: true)
        var faults = 0
        for op in sample.points {
            let fs = FaultInjectingFileSystem(
                plan: .fail(operation: op, errno: code, persistent: true), logsOperations: false)
            let label = "errno \(code) from op \(op)/\(total) on"
            let acknowledged = try Self.workload(fs, commits: 10, label: label)
            faults += 1
            // The disk comes back after a reboot: only what was synced is there.
            let rebooted = fs.powerLoss(seed: UInt64(op), mode: .dropUnsynced)
            let store = try Store.open(path: Self.path, options: Self.options(rebooted))
            let diff = try store.read { try firstDifference($0, acknowledged) }
            #expect(diff == nil, "\(label): after the disk came back: \(diff ?? "")")
            try store.close()
            let report = try StoreVerifier.verify(path: Self.path, options: VerifierOptions(fileSystem: rebooted))
            #expect(report.isClean, "\(label): verifier after reopen: \(report.problemsOnly.prefix(3))")
        }
        #expect(faults == sample.points.count)
        #expect(sample.kinds.count >= 10, "\(sample.kinds)")
    }

    @Test func failedWALFsyncPoisonsUntilReopen() throws {
        let fs = FaultInjectingFileSystem(logsOperations: false)
        let store = try Store.open(path: Self.path, options: Self.options(fs))
        try store.write { try $0.createTree("t").put([1], [1]) }
        fs.plan = .failEvery(.sync, path: Self.path + "-wal", errno: EIO)
        #expect(throws: StoreError.self) { try store.write { try $0.tree("t")!.put([2], [2]) } }
        fs.plan = .none
        do {
            _ = try store.read { _ in 0 }
            Issue.record("a poisoned store must refuse work")
        } catch let e as StoreError {
            guard case .poisoned = e else { Issue.record("expected poisoned, got \(e)"); return }
        }
        try? store.close()
        let reopened = try Store.open(path: Self.path, options: Self.options(fs))
        #expect(try reopened.read { try $0.tree("t")!.get([1]) } == [1])
        #expect(
            try reopened.read { try $0.tree("t")!.get([2]) } == nil, "the commit reported as failed must not appear")
        try reopened.close()
    }
}
