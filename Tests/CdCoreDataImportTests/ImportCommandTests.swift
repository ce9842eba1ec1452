import CdFaultSupport
import Foundation
import Testing

/// `cdstore-import-coredata` as a user runs it: the summary, the exit codes, and a kill in the
/// middle of an import, which must leave no store at the output. `cdstore import-coredata` is the
/// same command: the summary and exit-code tests run both.
@Suite struct ImportCommandTests {
    private func command() throws -> URL { try BuiltExecutable.locate("cdstore-import-coredata") }

    /// The two ways to run the import: its own executable, and `cdstore`'s subcommand.
    static let forms: [[String]] = [["cdstore-import-coredata"], ["cdstore", "import-coredata"]]

    /// Runs the import in `form` with `arguments`.
    private func launch(_ form: [String], _ arguments: [String]) throws -> BuiltExecutable.Output {
        try BuiltExecutable.run(try BuiltExecutable.locate(form[0]), arguments: Array(form.dropFirst()) + arguments)
    }

    @Test(arguments: forms) func importsAndPrintsASummary(_ form: [String]) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let (store, model) = try CoreDataStoreGenerator().write(into: scratch.url)
        let output = scratch.url.appendingPathComponent("Gen.cdstore")
        let run = try launch(form, [store.path, "--model", model.path, "--output", output.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("imported 23 objects into \(output.path)"))
        #expect(run.stdout.contains("model version: Gen"))
        #expect(run.stdout.contains("commits: 1 (at most 62 objects and links each)"), "\(run.stdout)")
        #expect(run.stdout.contains("skipped (not objects): ACHANGE, ATRANSACTION"))
        let again = try launch(form, [store.path, "--model", model.path, "--output", output.path])
        #expect(again.status == 1)
        #expect(again.stderr.contains("already exists"))
        let usage = try launch(form, [store.path])
        #expect(usage.status == 16)
    }

    @Test(arguments: forms) func strictRefusesADamagedStore(_ form: [String]) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        var generator = CoreDataStoreGenerator()
        generator.damaged = true
        let (store, model) = try generator.write(into: scratch.url)
        let output = scratch.url.appendingPathComponent("Gen.cdstore")
        let run = try launch(form, [store.path, "--model", model.path, "--strict", "--output", output.path])
        #expect(run.status == 1)
        #expect(run.stderr.contains("Z_PK"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    @Test func aKilledImportLeavesNoStoreAtTheOutput() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let (store, model) = try GeneratedScaleTests.generator(objects: 20_000).write(into: scratch.url)
        let output = scratch.url.appendingPathComponent("Gen.cdstore")
        let temporary = scratch.url.appendingPathComponent(".Gen.cdstore.importing")
        let process = Process()
        process.executableURL = try command()
        process.arguments = [store.path, "--model", model.path, "--no-progress", "--output", output.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Kill it while it writes: once the temporary store exists.
        let deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: temporary.path) && process.isRunning && Date() < deadline {
            usleep(2_000)
        }
        let killedWhileWriting = process.isRunning
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(killedWhileWriting, "killed while the import was writing")
        #expect(!FileManager.default.fileExists(atPath: output.path), "no store at the output")
        // The next import removes what the killed one left and completes.
        let run = try BuiltExecutable.run(
            try command(), arguments: [store.path, "--model", model.path, "--output", output.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: temporary.path))
        #expect(!FileManager.default.fileExists(atPath: temporary.path + "-wal"))
    }
}
