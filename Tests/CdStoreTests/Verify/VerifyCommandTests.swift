// Runs the built `cdstore-verify` binary as a subprocess and checks its fsck exit codes and output.
// `swift test` builds every target, so the binary sits next to the test bundle.

import Foundation
import CdFaultSupport
import Testing
@testable import CdStore

@Suite struct VerifyCommandTests {
    static func run(_ arguments: [String]) throws -> BuiltExecutable.Output {
        let output = try BuiltExecutable.run(try BuiltExecutable.locate("cdstore-verify"), arguments: arguments)
        #expect(!output.diedOfSignal, "cdstore-verify died of a signal")
        return output
    }

    /// Writes `files` into a fresh directory; returns the store's path.
    static func write(_ files: StoreFiles, to dir: URL) throws -> String {
        let path = dir.appendingPathComponent("store.cd").path
        try Data(files.pageFile).write(to: URL(fileURLWithPath: path))
        if !files.wal.isEmpty { try Data(files.wal).write(to: URL(fileURLWithPath: path + "-wal")) }
        return path
    }

    static func withTempDir<R>(_ body: (URL) throws -> R) throws -> R {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cd-verify-cmd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        return try body(dir)
    }

    @Test func cleanStoreExitsZeroWithASummary() throws {
        try Self.withTempDir { dir in
            let path = try Self.write(try TestStores.build(.wal), to: dir)
            let r = try Self.run([path])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("page size 4096"))
            #expect(r.stdout.contains("OK: no problems"))
            #expect(try Self.run(["--quiet", path]).stdout.isEmpty)
        }
    }

    @Test func damagedStoreExitsFourAndNamesThePage() throws {
        try Self.withTempDir { dir in
            var files = try TestStores.build(.checkpointed)
            let anatomy = try StoreAnatomy(files)
            let leaf = try #require(anatomy.pageFilePages(.leaf, tree: "alpha").first)
            files.pageFile[anatomy.imageRange(leaf).lowerBound + 40] ^= 0xFF
            let r = try Self.run(["--no-progress", try Self.write(files, to: dir)])
            #expect(r.status == 4)
            #expect(r.stdout.contains("PROBLEM: page \(leaf)"))
        }
    }

    @Test func jsonOutputIsOneSortedDocument() throws {
        try Self.withTempDir { dir in
            let r = try Self.run(["--json", try Self.write(try TestStores.build(.checkpointed), to: dir)])
            #expect(r.status == 0)
            let report = try JSONDecoder().decode(VerificationReport.self, from: Data(r.stdout.utf8))
            #expect(report.summary.trees.contains { $0.name == "alpha" })
            let keys = r.stdout.split(separator: "\n").filter { $0.hasPrefix("  \"") }.map {
                $0.split(separator: "\"")[1]
            }
            #expect(keys == keys.sorted() && keys.contains("summary"))
        }
    }

    @Test func operationalErrorsExitEight() throws {
        try Self.withTempDir { dir in
            let missing = try Self.run([dir.appendingPathComponent("nope.cd").path])
            #expect(missing.status == 8)
            #expect(missing.stderr.contains("no such file"))
            let junk = dir.appendingPathComponent("junk").path
            try Data(repeating: 0x41, count: 10_000).write(to: URL(fileURLWithPath: junk))
            let notAStore = try Self.run([junk])
            #expect(notAStore.status == 8)
            #expect(notAStore.stderr.contains("not a Cadmium store"))

            let path = try Self.write(try TestStores.build(.checkpointed), to: dir)
            var options = StoreOptions()
            options.durability = .off
            // A store opened by several processes is verified beside them (StoreVerifierTests);
            // one a process opened alone is locked, as a build before several processes opens it.
            options.sharing = .exclusive
            let store = try Store.open(path: path, options: options)
            let locked = try Self.run([path])
            try store.close()
            #expect(locked.status == 8)
            #expect(locked.stderr.contains("store is open for writing by another process"))
        }
    }

    @Test(arguments: [["--bogus", "x"], ["--max-problems", "0", "x"], ["--max-problems", "many", "x"], []])
    func usageErrorsExitSixteen(_ arguments: [String]) throws {
        let r = try Self.run(arguments)
        #expect(r.status == 16, "\(r.stderr)")
        #expect(!r.stderr.isEmpty)
    }

    @Test func helpExitsZero() throws {
        let r = try Self.run(["--help"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("--max-problems"))
    }
}
