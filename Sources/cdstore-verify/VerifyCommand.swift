import ArgumentParser
import CdStoreCommands

// `cdstore-verify`: the verify command under its own name (`cdstore verify` runs the same code,
// VerifyArguments). Exit codes: 0 no problems, 4 problems found, 8 operational error, 16 usage
// error.

@main
struct VerifyCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "cdstore-verify",
        abstract: "Check a Cadmium store file and its WAL without changing them.",
        discussion: "Exit codes: 0 no problems, 4 problems found, 8 operational error, 16 usage error."
    )

    @OptionGroup var arguments: VerifyArguments

    func execute(tool: String) -> Int32 { arguments.execute(tool: tool) }

    static func main() { ToolMain.run(Self.self, tool: "cdstore-verify") }
}
