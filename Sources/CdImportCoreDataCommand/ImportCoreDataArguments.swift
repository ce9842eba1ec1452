import ArgumentParser
import CdCoreDataImport
import CdToolSupport
import Foundation

// The Core Data import command's options and body, shared by `cdstore-import-coredata` and
// `cdstore import-coredata`: imports an Apple Core Data SQLite store into a new Cadmium store
// (CdCoreDataImport), with a progress line on a terminal and a summary.
//
// Exit codes: 0 imported (bad rows, if any, are listed), 1 import refused or failed (nothing at
// the output), 16 usage error.

/// The options of the Core Data import command.
package struct ImportCoreDataArguments: ParsableArguments {
    /// The command's one-line description, under either name.
    package static let abstract = "Import an Apple Core Data SQLite store into a new Cadmium store."
    /// The command's help text: what is read, and the exit codes.
    package static let discussion =
        "The source files are only read. The model version is chosen by the store's schema unless --version "
        + "is given. Exit codes: 0 imported, 1 refused or failed (nothing is written at the output), 16 usage."

    @Argument(help: "The Core Data store (its -wal and external data are read beside it).")
    var store: String

    @Option(name: .long, help: "The app's model: a .xcdatamodeld bundle or a .xcdatamodel.")
    var model: String

    @Option(name: .long, help: "The model version the store was written with (default: found by schema).")
    var version: String?

    @Flag(name: .long, help: "Refuse the import at the first row that breaks the model.")
    var strict = false

    @Flag(name: .customLong("no-progress"), help: "Never show a progress line.")
    var noProgress = false

    @Option(name: .long, help: "The new Cadmium store (must not exist).")
    var output: String

    package init() {}

    /// Runs the import; returns the exit code (0 imported, 1 refused or failed).
    package func execute(tool: String) -> Int32 {
        let line = !noProgress && isatty(STDERR_FILENO) == 1 ? ProgressLine(labelWidth: 14) : nil
        var options = CoreDataImport.Options(version: version, strict: strict)
        if let line {
            options.progress = { p in
                line.update(label: p.phase, fraction: p.total > 0 ? Double(p.completed) / Double(p.total) : 0)
            }
        }
        let started = Date()
        let report: CoreDataImportReport
        do {
            report = try CoreDataImport.importStore(
                at: URL(fileURLWithPath: store), model: URL(fileURLWithPath: model),
                to: URL(fileURLWithPath: output), options: options)
            line?.finish()
        } catch {
            line?.finish()
            FileHandle.standardError.write(Data("\(tool): \(error)\n".utf8))
            return 1
        }
        let seconds = Date().timeIntervalSince(started)
        print(summary(report, seconds: seconds), terminator: "")
        return 0
    }

    /// The summary printed after a successful import.
    func summary(_ report: CoreDataImportReport, seconds: Double) -> String {
        var text = "imported \(report.objectCount) objects into \(output) in \(String(format: "%.2f", seconds)) s"
        if seconds > 0 { text += " (\(Int(Double(report.objectCount) / seconds)) objects/s)" }
        text += "\nmodel version: \(report.modelVersion)\nstore UUID: \(report.storeUUID)\n"
        text += "commits: \(report.commits) (at most \(report.largestCommit) objects and links each)\n"
        for (entity, count) in report.objectCounts.sorted(by: { $0.key < $1.key }) {
            text += "  \(entity): \(count)\n"
        }
        if !report.skippedTables.isEmpty {
            text += "skipped (not objects): \(report.skippedTables.joined(separator: ", "))\n"
        }
        for warning in report.modelWarnings { text += "model warning: \(warning)\n" }
        if report.badRowCount > 0 {
            text += "\(report.badRowCount) bad rows (not imported or left out, as each says):\n"
            for row in report.badRows { text += "  \(row)\n" }
            if report.badRowCount > report.badRows.count {
                text += "  … and \(report.badRowCount - report.badRows.count) more\n"
            }
        }
        return text
    }
}
