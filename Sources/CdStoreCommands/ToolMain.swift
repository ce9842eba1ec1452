import ArgumentParser
import Foundation

// How every command-line tool of the package starts and ends: parse with ArgumentParser, run the
// command's `execute`, exit with the code it returns. A usage error (unknown option, missing
// argument, failed validation) prints ArgumentParser's message and exits 16, the code fsck(8)
// gives usage errors, in every tool; `--help` and `--version` exit 0.

/// A command whose body returns its exit code instead of throwing.
package protocol ToolCommand: ParsableCommand {
    /// Runs the command; `tool` is the name error lines start with (`cdstore`, `cdstore-verify`).
    func execute(tool: String) -> Int32
}

/// The exit code of a usage error, in every tool.
package let usageExitCode: Int32 = 16

/// Parses the process's arguments with `root` and runs the command they name.
package enum ToolMain {
    package static func run(_ root: any ParsableCommand.Type, tool: String) -> Never {
        var command: any ParsableCommand
        do {
            command = try root.parseAsRoot(nil)
        } catch {
            exit(root, for: error)
        }
        if let tool_ = command as? any ToolCommand { Foundation.exit(tool_.execute(tool: tool)) }
        do {
            try command.run()  // a command group without a subcommand: its help
        } catch {
            exit(root, for: error)
        }
        Foundation.exit(0)
    }

    /// Prints ArgumentParser's message for `error` and exits 0 for help, else 16.
    private static func exit(_ root: any ParsableCommand.Type, for error: any Error) -> Never {
        if root.exitCode(for: error) == .success {
            print(root.fullMessage(for: error))
            Foundation.exit(0)
        }
        FileHandle.standardError.write(Data((root.fullMessage(for: error) + "\n").utf8))
        Foundation.exit(usageExitCode)
    }
}

/// Writing to the terminal.
package enum ToolOutput {
    /// Writes `tool: message` as one line to standard error.
    package static func fail(tool: String, _ message: String) {
        FileHandle.standardError.write(Data("\(tool): \(message)\n".utf8))
    }

    /// Whether standard output is a terminal (tables, colours) rather than a pipe or file.
    package static var standardOutputIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
}
