import CdFaultSupport
import CdObjects
import CdStore
import Foundation
import Testing

/// Real process crashes during a migration: `cadmium-crash-child --migrate` migrates a store of
/// `MigrationCrashWorkload`'s version 1 (3,000 items) to version 2 and is SIGKILLed at a seeded
/// random moment (start-up, reading, mapping, writing the new store, the swap). After each kill
/// the files verify clean (engine and object checks), a fresh child finds the store whole in
/// version 1 or version 2 (V1/V2), and a migration run to its end then leaves version 2.
///
/// `CADMIUM_CRASH_MIGRATION_KILLS` sets the number of kills (default 8), `CADMIUM_CRASH_SEED` the seed.
@Suite struct MigrationProcessCrashTests {
    @Test func killedMigrationLeavesTheOldStoreOrTheNewOne() throws {
        let kills = ProcessInfo.processInfo.environment["CADMIUM_CRASH_MIGRATION_KILLS"].flatMap(Int.init) ?? 8
        let seed = ProcessInfo.processInfo.environment["CADMIUM_CRASH_SEED"].flatMap(UInt64.init) ?? 0x316_2A7E
        print("MigrationProcessCrashTests: \(kills) kills, seed \(seed) (replay with CADMIUM_CRASH_SEED=\(seed))")
        let child = try CrashChild.executable()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cadmium-migcrash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("migrate.cdstore").path
        var rng = FuzzRandom(seed: seed)
        var versions: [Int: Int] = [:]
        for k in 1...kills {
            let label = "kill \(k)/\(kills) (seed \(seed))"
            let seeded = try CrashChild.runToEnd(child, arguments: ["--migrate", "--seed", path])
            try #require(seeded.status == 0, "\(label): seeding failed: \(seeded.stderr)")
            let run = try CrashChild.runAndKill(child, arguments: ["--migrate", path], rng: &rng)
            #expect(run.stderr.isEmpty, "\(label): \(run.stderr)")
            var options = VerifierOptions()
            options.additionalPasses = [ObjectStoreCheck()]
            let report = try retryingWhileLocked { try StoreVerifier.verify(path: path, options: options) }
            #expect(report.isClean, "\(label): \(report.problems.prefix(5).map(\.description))")
            let check = try CrashChild.runToEnd(child, arguments: ["--migrate", "--check", path])
            try #require(check.status == 0, "\(label): the check failed (exit \(check.status)): \(check.stderr)")
            let version = Int(
                check.stdout.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "")
            #expect(version == 1 || version == 2, "\(label): \(check.stdout)")
            versions[version ?? 0, default: 0] += 1
            let finish = try CrashChild.runToEnd(child, arguments: ["--migrate", path])
            #expect(finish.status == 0, "\(label): the migration after the kill failed: \(finish.stderr)")
            let after = try CrashChild.runToEnd(child, arguments: ["--migrate", "--check", path])
            #expect(after.stdout.contains("VERSION 2"), "\(label): \(after.stdout) \(after.stderr)")
        }
        print(
            "MigrationProcessCrashTests: store found in version 1 after \(versions[1] ?? 0) kills, "
                + "2 after \(versions[2] ?? 0)")
    }
}
