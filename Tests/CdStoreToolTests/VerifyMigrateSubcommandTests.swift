// `cdstore verify` and `cdstore migrate` are today's `cdstore-verify` and `cdstore-migrate`: the
// same output and exit codes, on clean, damaged and missing stores and on usage errors.

import CdObjects
import CdStore
import Foundation
import Testing

@Suite struct VerifyMigrateSubcommandTests {
    /// Runs `cdstore SUB arguments` and `cdstore-SUB arguments`; expects the same status and
    /// output (error lines differ only in the tool's name); returns the status.
    @discardableResult
    static func same(_ subcommand: String, _ arguments: [String]) throws -> Int32 {
        let new = try Cdstore.run([subcommand] + arguments)
        let old = try Cdstore.run(arguments, tool: "cdstore-\(subcommand)")
        #expect(new.status == old.status, "\(subcommand) \(arguments)")
        #expect(new.stdout == old.stdout)
        #expect(
            new.stderr.replacingOccurrences(of: "cdstore: ", with: "")
                == old.stderr
                .replacingOccurrences(of: "cdstore-\(subcommand): ", with: "")
                .replacingOccurrences(of: "cdstore-\(subcommand) ", with: "cdstore \(subcommand) "))
        return new.status
    }

    @Test func verifyPassesThroughWithFsckCodes() throws {
        try Cdstore.withTempDir { dir in
            let path = dir.appendingPathComponent("sample.cdstore").path
            try SampleStore.create(at: path)
            #expect(try Self.same("verify", [path]) == 0)
            #expect(try Self.same("verify", ["--json", path]) == 0)
            let damaged = try Cdstore.copyFixtureStore("hostile/objects/rel-entry-unknown-entity-code.cdstore", to: dir)
            #expect(try Self.same("verify", ["--quiet", damaged]) == 4)
            #expect(try Self.same("verify", [dir.appendingPathComponent("nope").path]) == 8)
            #expect(try Cdstore.run(["verify", "--max-problems", "0", path]).status == 16)
            #expect(try Cdstore.run(["verify", "--max-problems", "0", path], tool: "cdstore-verify").status == 16)
        }
    }

    @Test func migratePassesThrough() throws {
        try Cdstore.withTempDir { dir in
            let modelPath = Cdstore.fixture("values/ValuesModel.xcdatamodel").path
            let history = try ModelFileReader.loadVersions(at: modelPath)
            let model = try #require(history.current?.model)
            let path = dir.appendingPathComponent("values.cdstore").path
            try ObjectStore.open(path: path, model: model).close()
            #expect(try Self.same("migrate", ["--model", modelPath, "--no-progress", path]) == 0)
            let r = try Cdstore.run(["migrate", "--model", modelPath, path])
            #expect(r.stdout.contains("verified: no problems"))
            #expect(
                try Self.same("migrate", ["--model", dir.appendingPathComponent("none.xcdatamodel").path, path]) == 8)
            #expect(try Cdstore.run(["migrate", path]).status == 16)
            #expect(try Cdstore.run([path], tool: "cdstore-migrate").status == 16)
        }
    }

    @Test func noSubcommandPrintsHelpAndAnUnknownOneIsAUsageError() throws {
        let help = try Cdstore.run([])
        #expect(help.status == 0)
        #expect(help.stdout.contains("SUBCOMMANDS"))
        #expect(try Cdstore.run(["frobnicate"]).status == 16)
    }
}
