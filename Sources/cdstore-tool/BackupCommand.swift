import ArgumentParser
import CdObjects
import CdStore
import CdStoreCommands
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

    func execute(tool: String) -> Int32 {
        var verified: VerificationReport?
        let status = reportingFailures(tool: tool) {
            guard FileManager.default.fileExists(atPath: store) else {
                throw ToolFailure.operational("\(store): no such file")
            }
            let result: BackupResult
            do {
                var options = StoreOptions()
                options.readOnly = true
                options.cacheBytes = 16 << 20
                let source = try Store.open(path: store, options: options)
                defer { try? source.close() }
                result = try source.backup(to: destination)
            } catch {
                throw ToolFailure.from(error, path: store)
            }
            let out = OutputSink.standardOutput()
            try out.write(
                "\(destination): commit \(result.commit.rawValue) of \(store), \(result.copied.trees) trees, "
                    + "\(result.copied.entries) entries, "
                    + "\(StoreInfo.bytes(UInt64(result.copied.bytes))) of keys and values, "
                    + "file \(StoreInfo.bytes(StoreInfo.fileSize(destination)))\n")
            if !noVerify {
                var options = VerifierOptions()
                options.additionalPasses = [ObjectStoreCheck()]
                let report: VerificationReport
                do { report = try StoreVerifier.verify(path: destination, options: options) } catch {
                    throw ToolFailure.from(error, path: destination)
                }
                verified = report
                if report.problemCount == 0 { try out.write("\(destination): verified, no problems\n") }
            }
            try out.close()
        }
        if status == 0, let verified, verified.problemCount > 0 {
            ToolOutput.fail(
                tool: tool, "\(destination): the copy does not verify (\(verified.problemCount) problems)")
            print(verified.text(includeSummary: false), terminator: "")
            return VerifyExit.problems
        }
        return status
    }
}
