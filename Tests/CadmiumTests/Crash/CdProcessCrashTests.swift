import CdFaultSupport
import CdObjects
import CdStore
import Foundation
import Testing

/// Real process crashes through the `Cd` API: `cadmium-crash-child --cd` commits numbered
/// transactions of managed objects with `Cd.transactAndWait` (`Durability.full`) and
/// acknowledges each; the driver SIGKILLs it at seeded random moments, verifies the files with the
/// engine's and the object layer's checks, and has a fresh `cadmium-crash-child --cd --check`
/// process recover the store through `Cd` and check that every acknowledged transaction is there
/// and none is partly visible (`CdCrashWorkload.check`).
///
/// `CADMIUM_CRASH_CD_KILLS` sets the number of kills (default 20; `make crash-test` runs 500),
/// `CADMIUM_CRASH_SEED` the seed.
@Suite struct CdProcessCrashTests {
    @Test func killedCdChildLosesNoAcknowledgedTransaction() throws {
        let kills = ProcessInfo.processInfo.environment["CADMIUM_CRASH_CD_KILLS"].flatMap(Int.init) ?? 20
        let seed = ProcessInfo.processInfo.environment["CADMIUM_CRASH_SEED"].flatMap(UInt64.init) ?? 0xCD_C1A5
        print("CdProcessCrashTests: \(kills) kills, seed \(seed) (replay with CADMIUM_CRASH_SEED=\(seed))")
        let child = try CrashChild.executable()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cadmium-cdcrash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("crash.cdstore").path
        var rng = FuzzRandom(seed: seed)
        var durable = 0, survived = 0, totalAcks = 0, inFlightSurvived = 0
        for k in 1...kills {
            let run = try CrashChild.runAndKill(child, arguments: ["--cd", path], rng: &rng)
            let label = "kill \(k)/\(kills) (seed \(seed))"
            guard run.exitedBySIGKILL else {
                Issue.record("\(label): the child ended before the kill: \(run.stderr)")
                return
            }
            totalAcks += run.acks.count
            let mustHave = max(durable, run.acks.max() ?? 0)
            if FileManager.default.fileExists(atPath: path) {
                var options = VerifierOptions()
                options.additionalPasses = [ObjectStoreCheck()]
                let report = try retryingWhileLocked { try StoreVerifier.verify(path: path, options: options) }
                guard report.isClean else {
                    Issue.record(
                        """
                        \(label): verifier found problems in the crashed store: \
                        \(report.problems.filter { $0.severity == .problem }.prefix(5).map { $0.description })
                        """
                    )
                    return
                }
            }
            let check = try CrashChild.runToEnd(child, arguments: ["--cd", "--check", path])
            guard check.status == 0,
                let last = check.stdout.split(separator: " ").last.flatMap({
                    Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
                })
            else {
                Issue.record("\(label): the check failed (exit \(check.status)): \(check.stderr)")
                return
            }
            #expect(
                last >= mustHave, "\(label): transaction \(mustHave) was acknowledged, the store holds only \(last)")
            #expect(
                last <= mustHave + 1,
                "\(label): the store holds \(last), more than the acknowledged \(mustHave) and the one in flight")
            if last == mustHave + 1 { inFlightSurvived += 1 }
            durable = last
            survived += 1
        }
        print(
            "CdProcessCrashTests: \(survived) kills survived, \(totalAcks) acknowledged transactions, "
                + "\(inFlightSurvived) in-flight transactions durable at the kill, last transaction \(durable)"
        )
        #expect(survived == kills)
        #expect(durable > 0, "no transaction ever committed")
    }
}
