import ArgumentParser
import CdObjects
import CdStore
import Foundation

// The migrate command's options and body, shared by `cdstore-migrate` and `cdstore migrate`:
// `STORE --model MODEL [--version NAME] [--allow-data-loss]` migrates a store file
// to a version of a Core Data model file (lightweight, step by step through the file's versions),
// with a progress bar, and verifies the result. A step back to an earlier version, or an inferred
// step that drops stored data, is refused (exit 4) unless `--allow-data-loss` asks for it. The
// migration itself lives in CdObjects/Migration.
//
// Exit codes: 0 migrated (or already of that version), 4 the migration is not possible (the store
// is left as it was), 8 operational error (cannot read the model or the store), 16 usage error.

/// The migrate command's exit codes.
package enum MigrateExit {
    package static let done: Int32 = 0
    package static let refused: Int32 = 4
    package static let operational: Int32 = 8
    package static let usage: Int32 = 16
}

/// The migrate command's options.
package struct MigrateArguments: ParsableArguments {
    @Option(name: .long, help: "The model: a .xcdatamodeld bundle, a .xcdatamodel folder or a contents file.")
    var model: String

    @Option(name: .long, help: "The version to migrate to (a .xcdatamodel name); default: the current one.")
    var version: String?

    @Flag(name: .customLong("no-progress"), help: "Never show a progress bar.")
    var noProgress = false

    @Flag(name: .customLong("no-verify"), help: "Do not verify the migrated store.")
    var noVerify = false

    @Flag(
        name: .customLong("allow-data-loss"),
        help: "Also migrate a store back to an earlier version, or along a step that drops stored data.")
    var allowDataLoss = false

    @Argument(help: "The store's page file.")
    var store: String

    package init() {}

    /// Migrates the store, then verifies it; errors are prefixed with `tool`.
    package func execute(tool: String) -> Int32 {
        let fail = { (message: String) in ToolOutput.fail(tool: tool, message) }
        let history: ModelVersionHistory
        let target: ModelVersion
        do {
            history = try ModelFileReader.loadVersions(at: model)
            guard let chosen = version.map({ history.version(named: $0) }) ?? history.current else {
                fail(
                    "no version \(version ?? "(current)") in \(model); versions: "
                        + history.versions.map(\.name).joined(separator: ", "))
                return MigrateExit.usage
            }
            target = chosen
        } catch {
            fail("cannot read the model: \(error)")
            return MigrateExit.operational
        }
        guard FileManager.default.fileExists(atPath: store) else {
            fail("no store at \(store)")
            return MigrateExit.operational
        }
        let bar = noProgress || isatty(STDERR_FILENO) != 1 ? nil : MigrationProgressBar()
        let options = MigrationOptions(
            plan: MigrationPlan(versions: history.versions), allowsDataLoss: allowDataLoss
        ) { bar?.update($0) }
        do {
            let opened = try ObjectStore.open(path: store, model: target.model, migration: options)
            try opened.close()
            bar?.finish()
        } catch let error as MigrationError {
            bar?.finish()
            fail("\(error)\nThe store was not changed.")
            return MigrateExit.refused
        } catch {
            bar?.finish()
            fail("\(error)")
            return MigrateExit.operational
        }
        print("\(store): version \(target.name)")
        if noVerify { return MigrateExit.done }
        var verifyOptions = VerifierOptions()
        verifyOptions.additionalPasses = [ObjectStoreCheck()]
        do {
            let report = try StoreVerifier.verify(path: store, options: verifyOptions)
            guard report.isClean else {
                fail("the migrated store does not verify: \(report.problems.prefix(5).map(\.description))")
                return MigrateExit.operational
            }
            print("verified: no problems")
        } catch {
            fail("cannot verify the migrated store: \(error)")
            return MigrateExit.operational
        }
        return MigrateExit.done
    }
}
