import ArgumentParser
import CdImportCoreDataCommand
import CdStoreCommands

// `cdstore-import-coredata`: the Core Data import under its own name (`cdstore import-coredata`
// runs the same code, ImportCoreDataArguments). Exit codes: 0 imported (bad rows, if any, are
// listed), 1 import refused or failed (nothing at the output), 16 usage error.

@main
struct ImportCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "cdstore-import-coredata",
        abstract: ImportCoreDataArguments.abstract,
        discussion: ImportCoreDataArguments.discussion
    )

    @OptionGroup var arguments: ImportCoreDataArguments

    func execute(tool: String) -> Int32 { arguments.execute(tool: tool) }

    static func main() { ToolMain.run(Self.self, tool: "cdstore-import-coredata") }
}
