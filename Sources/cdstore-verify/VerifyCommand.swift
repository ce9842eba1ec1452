import ArgumentParser
import CdStore
import CdObjects
import Foundation

// `cdstore-verify`: parses arguments, runs StoreVerifier, prints the report and exits with an
// fsck(8) code. All checking lives in CdStore/Verify.
//
// Exit codes: 0 no problems, 4 problems found, 8 operational error (cannot open or read the
// store: missing, permission, not a store, locked by a writer), 16 usage error.

enum VerifyExit {
    static let clean: Int32 = 0
    static let problems: Int32 = 4
    static let operational: Int32 = 8
    static let usage: Int32 = 16
}

@main
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cdstore-verify",
        abstract: "Check a Cadmium store file and its WAL without changing them.",
        discussion: "Exit codes: 0 no problems, 4 problems found, 8 operational error, 16 usage error."
    )

    @Flag(name: .long, help: "Print the report as one JSON document.")
    var json = false

    @Flag(name: .long, help: "Print only the findings (no summary); nothing when there are none.")
    var quiet = false

    @Flag(name: .customLong("no-progress"), help: "Never show a progress bar.")
    var noProgress = false

    @Option(name: .customLong("max-problems"), help: "List at most N findings (all are counted).")
    var maxProblems = 100

    @Argument(help: "The store's page file (its WAL is the same path with -wal appended).")
    var store: String

    func validate() throws {
        guard maxProblems >= 1 else { throw ValidationError("--max-problems must be at least 1") }
    }

    /// Parses, runs, and exits with an fsck code; ArgumentParser's usage errors become 16.
    static func main() {
        let command: VerifyCommand
        do {
            var parsed = try parseAsRoot()
            guard let verify = parsed as? VerifyCommand else {
                try parsed.run()  // --help and similar built-in commands
                Foundation.exit(VerifyExit.clean)
            }
            command = verify
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
                Foundation.exit(VerifyExit.clean)
            }
            FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
            Foundation.exit(VerifyExit.usage)
        }
        Foundation.exit(command.execute())
    }

    func execute() -> Int32 {
        var options = VerifierOptions()
        options.maxProblems = maxProblems
        options.additionalPasses = [ObjectStoreCheck()]
        let progress = ProgressBar.forStandardError(enabled: !noProgress && !json, store: store)
        if let progress { options.progress = { @Sendable p in progress.update(p) } }
        let report: VerificationReport
        do {
            report = try StoreVerifier.verify(path: store, options: options)
            progress?.finish()
        } catch {
            progress?.finish()
            FileHandle.standardError.write(Data(("cdstore-verify: " + Self.describe(error, path: store) + "\n").utf8))
            return VerifyExit.operational
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
            guard let data = try? encoder.encode(report) else { return VerifyExit.operational }
            FileHandle.standardOutput.write(data + Data("\n".utf8))
        } else if quiet {
            if !report.problems.isEmpty { print(report.text(includeSummary: false), terminator: "") }
        } else {
            print(report.text(includeSummary: true), terminator: "")
        }
        return report.problemCount == 0 ? VerifyExit.clean : VerifyExit.problems
    }

    static func describe(_ error: any Error, path: String) -> String {
        switch error as? StoreError {
        case .locked?: return "\(path): store is open for writing by another process"
        case .io(let operation, let p, let errno)? where errno == ENOENT: return "\(p): no such file (\(operation))"
        case .io(_, let p, let errno)? where errno == EACCES: return "\(p): permission denied"
        case let e?: return e.description
        case nil: return "\(error)"
        }
    }
}
