import ArgumentParser
import CdObjects
import CdStore
import CdStoreCommands
import CdToolSupport
import Foundation

// `cdstore backup STORE DEST`: a consistent copy of the store's last commit (`Store.backup`,
// BK1–BK4), made on a read snapshot while applications keep writing to the store, then checked
// with every engine and object check before the command reports success. DEST is never
// replaced: an existing file is refused before anything is written.

struct BackupCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy a store's last commit into a new store file, while applications keep writing.",
        discussion: """
            The copy holds the store as of one commit: the last one when the backup began. It is written \
            beside DEST and renamed into place when whole, then verified (the checks of `cdstore verify`). \
            Exit codes: 0 copied and verified, 4 the copy does not verify, 8 cannot copy (missing, not a \
            store, damaged, DEST exists, I/O), 16 usage error.
            """
    )

    @Argument(help: "The store's page file.")
    var store: String

    @Argument(help: "The new store file to write (must not exist).")
    var destination: String

    @Flag(name: .customLong("no-verify"), help: "Skip checking the copy.")
    var noVerify = false

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text
        case json
    }

    @Option(name: .long, help: "text (for a person) or json (one document, docs/CDSTORE.md).")
    var format: Format = .text

    /// What `--format json` prints (docs/CDSTORE.md, `backup`).
    struct Summary: Encodable {
        var source: String
        var destination: String
        var commit: UInt64
        var trees: Int
        var entries: Int
        var keyValueBytes: Int
        var fileBytes: UInt64
        /// Nil with `--no-verify`.
        var verified: Bool?
        var problems: Int?
    }

    func execute(tool: String) -> Int32 {
        var verified: VerificationReport?
        let status = reportingFailures(tool: tool) {
            guard FileManager.default.fileExists(atPath: store) else {
                throw ToolFailure.operational("\(store): no such file")
            }
            let onTerminal = isatty(STDERR_FILENO) == 1
            let result: BackupResult
            do {
                var options = StoreOptions()
                options.readOnly = true
                options.cacheBytes = 16 << 20
                let source = try Store.open(path: store, options: options)
                defer { try? source.close() }
                var backup = BackupOptions()
                let bar = onTerminal ? ProgressLine(labelWidth: 24) : nil
                defer { bar?.finish() }
                if let bar {
                    backup.progress = { p in
                        bar.update(
                            label: "copying \(p.entries) entries",
                            fraction: p.trees > 0 ? Double(p.treesCopied) / Double(p.trees) : 0)
                    }
                }
                result = try source.backup(to: destination, options: backup)
            } catch {
                throw ToolFailure.from(error, path: store)
            }
            var summary = Summary(
                source: store, destination: destination, commit: result.commit.rawValue, trees: result.copied.trees,
                entries: result.copied.entries, keyValueBytes: result.copied.bytes,
                fileBytes: StoreInfo.fileSize(destination))
            if !noVerify {
                var options = VerifierOptions()
                options.additionalPasses = [ObjectStoreCheck()]
                let progress = VerifyProgressBar.forStandardError(enabled: format == .text, store: destination)
                if let progress { options.progress = { @Sendable p in progress.update(p) } }
                let report: VerificationReport
                do {
                    report = try StoreVerifier.verify(path: destination, options: options)
                    progress?.finish()
                } catch {
                    progress?.finish()
                    throw ToolFailure.from(error, path: destination)
                }
                verified = report
                summary.verified = report.problemCount == 0
                summary.problems = report.problemCount
            }
            let out = OutputSink.standardOutput()
            switch format {
            case .json:
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
                try out.write(String(decoding: try encoder.encode(summary), as: UTF8.self) + "\n")
            case .text:
                try out.write(
                    "\(destination): commit \(result.commit.rawValue) of \(store), \(result.copied.trees) trees, "
                        + "\(result.copied.entries) entries, "
                        + "\(StoreInfo.bytes(UInt64(result.copied.bytes))) of keys and values, "
                        + "file \(StoreInfo.bytes(summary.fileBytes))\n")
                if summary.verified == true { try out.write("\(destination): verified, no problems\n") }
            }
            try out.close()
        }
        if status == 0, let verified, verified.problemCount > 0 {
            ToolOutput.fail(
                tool: tool, "\(destination): the copy does not verify (\(verified.problemCount) problems)")
            if format == .text { print(verified.text(includeSummary: false), terminator: "") }
            return VerifyExit.problems
        }
        return status
    }
}
