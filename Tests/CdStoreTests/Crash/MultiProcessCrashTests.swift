import CdFaultSupport
import Foundation
import Testing
@testable import CdStore

/// Several processes on one store, killed at random: four `cadmium-crash-child --bank` processes
/// transfer money between the accounts of one store (BankWorkload) with `Durability.full`, reading
/// the whole bank now and then, while this driver SIGKILLs one of them at a seeded random moment —
/// holding the writer lock, mid-commit, mid-checkpoint, while reading — and starts another in its
/// place. After every kill this process (a fifth one on the store) checks, on a snapshot, that
/// every commit any child acknowledged is there and the accounts still sum to their total, and
/// the verifier (which takes the writer lock while it runs) finds no problem. Every child checks
/// its own reads' totals and exits 5 on a wrong one.
///
/// `CADMIUM_MPROC_KILLS` sets the number of kills (default 6; `make crash-test` runs 60) and
/// `CADMIUM_MPROC_SEED` the seed.
@Suite struct MultiProcessCrashTests {
    @Test func processesKilledAtRandomLoseNoAcknowledgedCommitAndReadOnlyWholeCommits() throws {
        let kills = environmentInt("CADMIUM_MPROC_KILLS", default: 6)
        let seed = testSeeds("CADMIUM_MPROC_SEED", defaults: [0xBA_4C])[0]
        print("MultiProcessCrashTests: \(kills) kills, seed \(seed) (replay with CADMIUM_MPROC_SEED=\(seed))")
        let executable = try CrashChild.executable()
        let dir = try TemporaryDirectory()
        let path = dir.path("bank.cdstore")
        let observer = try Store.open(path: path, options: BankWorkload.options())
        try BankWorkload.seed(observer)
        var rng = SeededGenerator(seed: seed)
        var started = 0
        func start() throws -> BankChild {
            started += 1
            return try BankChild(executable, path: path, tag: "c\(started)")
        }
        var children = try (0..<4).map { _ in try start() }
        var acknowledged: [String: Int] = [:]
        func check(_ label: String) throws {
            try observer.read { tx in
                try BankWorkload.checkTotal(tx)
                for (tag, last) in acknowledged.sorted(by: { $0.key < $1.key }) {
                    let missing = try BankWorkload.missing(tag: tag, upTo: last, in: tx)
                    #expect(
                        missing.isEmpty, "\(label): \(tag) acknowledged \(last) commits, \(missing.count) are missing")
                }
            }
        }
        for k in 1...kills {
            usleep(UInt32.random(in: 20_000..<250_000, using: &rng))
            let victim = Int.random(in: 0..<children.count, using: &rng)
            let label = "kill \(k)/\(kills) of \(children[victim].tag) (seed \(seed))"
            let (acks, killed, stderr) = children[victim].kill()
            #expect(killed, "\(label): the child ended before the kill: \(stderr)")
            #expect(!stderr.contains("VIOLATION"), "\(label): \(stderr)")
            acknowledged[children[victim].tag] = acks
            children[victim] = try start()
            for c in children { acknowledged[c.tag] = max(acknowledged[c.tag] ?? 0, c.lastAcknowledged) }
            try check(label)
            let report = try StoreVerifier.verify(path: path)
            #expect(report.isClean, "\(label): \(report.problems.prefix(3))")
        }
        var total = 0
        for c in children {
            let (acks, killed, stderr) = c.kill()
            #expect(killed, "\(c.tag) ended before the kill: \(stderr)")
            #expect(!stderr.contains("VIOLATION"), "\(c.tag): \(stderr)")
            acknowledged[c.tag] = acks
        }
        for (_, n) in acknowledged { total += n }
        try check("after the last kill")
        try observer.close()
        // Every process is gone: the next open is alone, recovers, and finds the same.
        let reopened = try Store.open(path: path, options: BankWorkload.options())
        try reopened.read { tx in
            try BankWorkload.checkTotal(tx)
            for (tag, last) in acknowledged {
                #expect(try BankWorkload.missing(tag: tag, upTo: last, in: tx).isEmpty, "\(tag) after reopening")
            }
        }
        try reopened.close()
        #expect(try StoreVerifier.verify(path: path).isClean)
        #expect(total > kills, "the children acknowledged only \(total) commits in all")
        print("MultiProcessCrashTests: \(started) processes, \(total) acknowledged commits")
    }
}
