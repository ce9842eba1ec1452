import CdFaultSupport
import Foundation
import Testing
@testable import CdStore

/// Real process crashes: `cadmium-crash-child` commits numbered transactions with
/// `Durability.full` and acknowledges each on a pipe; this driver SIGKILLs it at a seeded random
/// moment (before it opens the store, during recovery, between commits, inside one), then checks
/// the files with the verifier (no problems allowed), reopens the store, and checks that every
/// acknowledged transaction is there and none is partly visible (`CrashWorkload.check`). The same
/// store carries over from kill to kill, so later children recover what earlier kills left.
///
/// `CrashChild` (CdFaultSupport) starts, kills and listens to the child. `CADMIUM_CRASH_KILLS`
/// sets the number of kills (default 24; `make crash-test` runs 500) and `CADMIUM_CRASH_SEED`
/// the seed. CadmiumTests' `CdProcessCrashTests` does the same through the `Cd` API.
@Suite struct ProcessCrashTests {
    @Test func killedChildLosesNoAcknowledgedCommit() throws {
        let kills = environmentInt("CADMIUM_CRASH_KILLS", default: 24)
        let seed = testSeeds("CADMIUM_CRASH_SEED", defaults: [0xC1A5_4ED])[0]
        print("ProcessCrashTests: \(kills) kills, seed \(seed) (replay with CADMIUM_CRASH_SEED=\(seed))")
        let child = try CrashChild.executable()
        let dir = try TemporaryDirectory()
        let path = dir.path("crash.cdstore")
        var rng = SeededGenerator(seed: seed)
        var durable = 0  // the last transaction recovery has shown (never goes back)
        var survived = 0, totalAcks = 0, inFlightSurvived = 0, beforeOpen = 0
        for k in 1...kills {
            let run = try CrashChild.runAndKill(child, arguments: [path], rng: &rng)
            let label = "kill \(k)/\(kills) (seed \(seed))"
            guard run.exitedBySIGKILL else {
                Issue.record("\(label): the child ended before the kill: \(run.stderr)")
                return
            }
            if run.opened == nil { beforeOpen += 1 }
            if let opened = run.opened, opened < durable {
                Issue.record("\(label): the child reopened at transaction \(opened), but \(durable) was durable")
            }
            totalAcks += run.acks.count
            let mustHave = max(durable, run.acks.max() ?? 0)

            // The crashed files as they are, before recovery touches them.
            let crashed = try retryingWhileLocked { try StoreVerifier.verify(path: path) }
            guard crashed.isClean else {
                Issue.record(
                    """
                    \(label): verifier found problems in the crashed store: \
                    \(crashed.problemsOnly.prefix(5).map(\.description))
                    """
                )
                return
            }
            let store = try retryingWhileLocked { try Store.open(path: path, options: CrashWorkload.options()) }
            let last: Int
            do {
                last = try CrashWorkload.check(store)
            } catch let violation as CrashWorkload.Violation {
                Issue.record("\(label): \(violation)")
                try? store.close()
                return
            }
            try store.close()
            #expect(
                last >= mustHave, "\(label): transaction \(mustHave) was acknowledged, the store holds only \(last)")
            #expect(
                last <= mustHave + 1,
                "\(label): the store holds \(last), more than the acknowledged \(mustHave) and the one in flight")
            if last == mustHave + 1 { inFlightSurvived += 1 }
            let recovered = try retryingWhileLocked { try StoreVerifier.verify(path: path) }
            #expect(
                recovered.isClean,
                "\(label): verifier after recovery: \(recovered.problemsOnly.prefix(5).map(\.description))")
            durable = last
            survived += 1
        }
        print(
            "ProcessCrashTests: \(survived) kills survived (\(beforeOpen) before the store was open), "
                + "\(totalAcks) acknowledged commits, \(inFlightSurvived) in-flight commits durable at the kill, "
                + "last transaction \(durable)"
        )
        #expect(survived == kills)
        #expect(durable > 0, "no transaction ever committed")
    }

    // MARK: - The checker itself can fail

    /// `CrashWorkload.check` accepts complete transactions and names each kind of damage the
    /// campaign looks for: a half-applied commit, a lost key, a wrong value, a stray key.
    @Test func workloadCheckerDetectsPartlyVisibleTransactions() throws {
        func store(_ damage: (WriteTransaction) throws -> Void) throws -> Store {
            var o = CrashWorkload.options()
            o.fileSystem = InMemoryFileSystem()
            let store = try Store.open(path: "/w", options: o)
            for n in 1...60 { try CrashWorkload.commit(n, to: store) }
            try store.write(damage)
            return store
        }
        let clean = try store { _ in }
        #expect(try CrashWorkload.check(clean) == 60)
        let damages: [(String, (WriteTransaction) throws -> Void)] = [
            (
                "half of transaction 61",
                { tx in
                    try tx.tree("a")!.put(CrashWorkload.keyA(61, 0), CrashWorkload.value(61, 0))
                    try tx.tree("a")!.put(CrashWorkload.lastKey, Array("61".utf8))
                }
            ),
            ("a lost key", { tx in _ = try tx.tree("b")!.delete(CrashWorkload.keyB(17)) }),
            ("a wrong value", { tx in try tx.tree("a")!.put(CrashWorkload.keyA(55, 0), [1, 2, 3]) }),
            (
                "a key of a later transaction",
                { tx in try tx.tree("b")!.put(CrashWorkload.keyB(61), CrashWorkload.value(61, 99)) }
            ),
            (
                "an old key not deleted",
                { tx in try tx.tree("a")!.put(CrashWorkload.keyA(3, 0), CrashWorkload.value(3, 0)) }
            ),
        ]
        for (what, damage) in damages {
            let damaged = try store(damage)
            #expect(throws: CrashWorkload.Violation.self, "\(what) must be detected") {
                try CrashWorkload.check(damaged)
            }
            try damaged.close()
        }
        try clean.close()
    }
}
