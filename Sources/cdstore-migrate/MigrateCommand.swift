import ArgumentParser
import CdStoreCommands

// `cdstore-migrate`: the migrate command under its own name (`cdstore migrate` runs the same
// code, MigrateArguments). Exit codes: 0 migrated, 4 migration not possible (store unchanged),
// 8 operational error, 16 usage error.

@main
struct MigrateCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "cdstore-migrate",
        abstract: "Migrate a Cadmium store file to a version of a Core Data model (.xcdatamodeld).",
        discussion: "Exit codes: 0 migrated, 4 migration not possible (store unchanged), 8 operational error, "
            + "16 usage error."
    )

    @OptionGroup var arguments: MigrateArguments

    func execute(tool: String) -> Int32 { arguments.execute(tool: tool) }

    static func main() { ToolMain.run(Self.self, tool: "cdstore-migrate") }
}
