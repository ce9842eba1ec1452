import ArgumentParser
import CdObjects
import CdStore
import Foundation

// The verify command's options and body, shared by `cdstore-verify` and `cdstore verify`: runs
// StoreVerifier, prints the report and returns an fsck(8) code. All checking lives in
// CdStore/Verify.
//
// Exit codes: 0 no problems, 4 problems found, 8 operational error (cannot open or read the
// store: missing, permission, not a store, locked by a writer), 16 usage error.

/// The verify command's exit codes (fsck's).
package enum VerifyExit {
    package static let clean: Int32 = 0
    package static let problems: Int32 = 4
    package static let operational: Int32 = 8
    package static let usage: Int32 = 16
}

/// The verify command's options.
package struct VerifyArguments: ParsableArguments {
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

    package init() {}

    package func validate() throws {
        guard maxProblems >= 1 else { throw ValidationError("--max-problems must be at least 1") }
    }

    /// Verifies the store and prints the report; errors are prefixed with `tool`.
    package func execute(tool: String) -> Int32 {
        var options = VerifierOptions()
        options.maxProblems = maxProblems
        options.additionalPasses = [ObjectStoreCheck()]
        let progress = VerifyProgressBar.forStandardError(enabled: !noProgress && !json, store: store)
        if let progress { options.progress = { @Sendable p in progress.update(p) } }
        let report: VerificationReport
        do {
            report = try StoreVerifier.verify(path: store, options: options)
            progress?.finish()
        } catch {
            progress?.finish()
            ToolOutput.fail(tool: tool, Self.describe(error, path: store))
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

    /// One line for an error of the engine opening or reading `path`.
    package static func describe(_ error: any Error, path: String) -> String {
        switch error as? StoreError {
        case .locked?: return "\(path): store is open for writing by another process"
        case .io(let operation, let p, let errno)? where errno == ENOENT: return "\(p): no such file (\(operation))"
        case .io(_, let p, let errno)? where errno == EACCES: return "\(p): permission denied"
        case let e?: return e.description
        case nil: return "\(error)"
        }
    }
}
