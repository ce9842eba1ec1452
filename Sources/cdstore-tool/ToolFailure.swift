import CdObjects
import CdStore
import CdStoreCommands

// The one error type of `cdstore`'s subcommands: a one-line message saying what and where, and
// the exit code it ends the process with (CdstoreCommand lists the codes).

/// A failure that ends a subcommand: printed as `cdstore: <message>`, exits with `code`.
struct ToolFailure: Error, Equatable {
    /// One line: what went wrong and where (path, entity, property).
    var message: String
    var code: Int32

    /// The store cannot be opened or read, or the output cannot be written (exit 8).
    static func operational(_ message: String) -> ToolFailure { ToolFailure(message: message, code: 8) }

    /// The command line asks for something the store's model does not have (exit 16).
    static func usage(_ message: String) -> ToolFailure { ToolFailure(message: message, code: usageExitCode) }

    /// The failure for an error thrown while opening or reading the store at `path`: engine and
    /// object-layer errors (damage, lock, format) are operational, the rest (a predicate or sort
    /// key the model does not fit) usage errors.
    static func from(_ error: any Error, path: String) -> ToolFailure {
        switch error {
        case let failure as ToolFailure: return failure
        case let e as StoreError: return .operational(VerifyArguments.describe(e, path: path))
        case let CdError.store(e): return .operational(VerifyArguments.describe(e, path: path))
        case let e as StoredModelError: return .operational(e.description)
        case let e as CdError:
            switch e {
            case .unsupportedObjectFormat: return .operational(oneLine("\(e)"))
            case .incompatibleModel: return .operational(oneLine("\(path): \(e)"))
            default: return .usage(oneLine("\(e)"))
            }
        default: return .usage(oneLine("\(error)"))
        }
    }

    /// `text` with its line breaks turned into "; ", so that every failure is one line.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: "; ")
    }
}

extension ToolCommand {
    /// Runs `body`, turning a thrown failure into its one-line message and exit code.
    func reportingFailures(tool: String, _ body: () throws -> Void) -> Int32 {
        do {
            try body()
            return 0
        } catch let failure as ToolFailure {
            ToolOutput.fail(tool: tool, failure.message)
            return failure.code
        } catch {
            let failure = ToolFailure.operational(ToolFailure.oneLine("\(error)"))
            ToolOutput.fail(tool: tool, failure.message)
            return failure.code
        }
    }
}
