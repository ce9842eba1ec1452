#if canImport(Glibc)
import Glibc
#endif
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
/// `CADMIUM_CRASH_KILLS` sets the number of kills (default 24; `make crash-test` runs 500) and
/// `CADMIUM_CRASH_SEED` the seed.
@Suite struct ProcessCrashTests {
    /// The child's executable: `CADMIUM_CRASH_CHILD`, else next to this test binary (SwiftPM puts
    /// every product of a build in one directory, and the test target depends on the child, so
    /// `swift test` builds it first).
    static func childExecutable() throws -> URL {
        if let path = ProcessInfo.processInfo.environment["CADMIUM_CRASH_CHILD"] { return URL(fileURLWithPath: path) }
        var candidates: [URL] = []
        let running = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        candidates.append(running.deletingLastPathComponent())
        candidates.append(Bundle.main.bundleURL)
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        for directory in candidates {
            let url = directory.appendingPathComponent("cadmium-crash-child")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        throw ChildNotFound(searched: candidates.map(\.path))
    }

    struct ChildNotFound: Error, CustomStringConvertible {
        var searched: [String]
        var description: String { "cadmium-crash-child not found in \(searched); build it (`swift build --product cadmium-crash-child`) or set CADMIUM_CRASH_CHILD" }
    }

    /// What one run of the child said before it died.
    struct ChildRun {
        var opened: Int?
        var acks: [Int] = []
        var exitedBySIGKILL = false
        var stderr = ""
    }

    /// Starts the child on `path`, kills it at a moment drawn from `rng`, and returns what it said.
    static func runAndKill(child: URL, path: String, rng: inout SeededGenerator) throws -> ChildRun {
        let process = Process()
        process.executableURL = child
        process.arguments = [path]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        // Kill early (startup, open, recovery, the opening checkpoint) a quarter of the time;
        // else after 0–6 acknowledged commits plus up to 4 ms, which lands inside a commit, a
        // checkpoint or between them.
        let early = Int.random(in: 0..<4, using: &rng) == 0
        let earlyDelay = UInt32.random(in: 0..<25_000, using: &rng)
        let acksBeforeKill = Int.random(in: 0...6, using: &rng)
        let lateDelay = UInt32.random(in: 0..<4_000, using: &rng)
        try process.run()
        let pid = process.processIdentifier
        // A child that hangs is killed by the watchdog and fails the check below.
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 30, execute: watchdog)
        var run = ChildRun()
        var pending = Data()
        func consume(_ data: Data) {
            pending.append(data)
            while let nl = pending.firstIndex(of: 0x0A) {
                let line = String(decoding: pending[pending.startIndex..<nl], as: UTF8.self)
                pending.removeSubrange(pending.startIndex...nl)
                let parts = line.split(separator: " ")
                if parts.count == 2, let n = Int(parts[1]) {
                    if parts[0] == "ACK" { run.acks.append(n) } else if parts[0] == "OPEN" { run.opened = n }
                }
            }
        }
        if early {
            usleep(earlyDelay)
        } else {
            let reader = out.fileHandleForReading
            while run.opened == nil || run.acks.count < acksBeforeKill {
                let data = reader.availableData
                if data.isEmpty { break }          // the child exited on its own
                consume(data)
            }
            usleep(lateDelay)
        }
        kill(pid, SIGKILL)
        process.waitUntilExit()
        watchdog.cancel()
        // ACKs written before the kill are still in the pipe: they count as acknowledged.
        consume(out.fileHandleForReading.readDataToEndOfFile())
        run.stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        run.exitedBySIGKILL = process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL
        return run
    }

    @Test func killedChildLosesNoAcknowledgedCommit() throws {
        let kills = environmentInt("CADMIUM_CRASH_KILLS", default: 24)
        let seed = testSeeds("CADMIUM_CRASH_SEED", defaults: [0xC1A5_4ED])[0]
        print("ProcessCrashTests: \(kills) kills, seed \(seed) (replay with CADMIUM_CRASH_SEED=\(seed))")
        let child = try Self.childExecutable()
        let dir = try TemporaryDirectory()
        let path = dir.path("crash.cdstore")
        var rng = SeededGenerator(seed: seed)
        var durable = 0                 // the last transaction recovery has shown (never goes back)
        var survived = 0, totalAcks = 0, inFlightSurvived = 0, beforeOpen = 0
        for k in 1...kills {
            let run = try Self.runAndKill(child: child, path: path, rng: &rng)
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
            let crashed = try StoreVerifier.verify(path: path)
            guard crashed.isClean else {
                Issue.record("\(label): verifier found problems in the crashed store: \(crashed.problemsOnly.prefix(5).map(\.description))")
                return
            }
            let store = try Store.open(path: path, options: CrashWorkload.options())
            let last: Int
            do {
                last = try CrashWorkload.check(store)
            } catch let violation as CrashWorkload.Violation {
                Issue.record("\(label): \(violation)")
                try? store.close()
                return
            }
            try store.close()
            #expect(last >= mustHave, "\(label): transaction \(mustHave) was acknowledged, the store holds only \(last)")
            #expect(last <= mustHave + 1, "\(label): the store holds \(last), more than the acknowledged \(mustHave) and the one in flight")
            if last == mustHave + 1 { inFlightSurvived += 1 }
            let recovered = try StoreVerifier.verify(path: path)
            #expect(recovered.isClean, "\(label): verifier after recovery: \(recovered.problemsOnly.prefix(5).map(\.description))")
            durable = last
            survived += 1
        }
        print("ProcessCrashTests: \(survived) kills survived (\(beforeOpen) before the store was open), \(totalAcks) acknowledged commits, \(inFlightSurvived) in-flight commits durable at the kill, last transaction \(durable)")
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
            ("half of transaction 61", { tx in
                try tx.tree("a")!.put(CrashWorkload.keyA(61, 0), CrashWorkload.value(61, 0))
                try tx.tree("a")!.put(CrashWorkload.lastKey, Array("61".utf8))
            }),
            ("a lost key", { tx in _ = try tx.tree("b")!.delete(CrashWorkload.keyB(17)) }),
            ("a wrong value", { tx in try tx.tree("a")!.put(CrashWorkload.keyA(55, 0), [1, 2, 3]) }),
            ("a key of a later transaction", { tx in try tx.tree("b")!.put(CrashWorkload.keyB(61), CrashWorkload.value(61, 99)) }),
            ("an old key not deleted", { tx in try tx.tree("a")!.put(CrashWorkload.keyA(3, 0), CrashWorkload.value(3, 0)) }),
        ]
        for (what, damage) in damages {
            let damaged = try store(damage)
            #expect(throws: CrashWorkload.Violation.self, "\(what) must be detected") { try CrashWorkload.check(damaged) }
            try damaged.close()
        }
        try clean.close()
    }
}
