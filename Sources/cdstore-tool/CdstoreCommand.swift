import ArgumentParser
import CdImportCoreDataCommand
import CdStoreCommands

// `cdstore`: one command to look into, query, export, import, compact, verify and migrate a store
// file, and to import a Core Data store (docs/CDSTORE.md). Every subcommand works on the file
// alone: a store records its model in `cd.meta`, so no app classes are needed.
//
// Exit codes: 0 done; 4 problems found (verify) or migration not possible (migrate); 8 cannot
// open or read the store (missing, not a store, no object model, damaged, locked, newer format)
// or write the output; 16 usage error (bad options, or an entity, property, sort key or
// predicate the store's model does not have); `import-coredata` keeps the codes of
// `cdstore-import-coredata` (1 refused or failed).

@main
struct CdstoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cdstore",
        abstract: "Look into, query, export, import, compact, verify and migrate a Cadmium store.",
        discussion: """
            Every subcommand works on the store file alone, with the model the store records.
            Exit codes: 0 done, 4 problems found (verify) or migration not possible (migrate), \
            8 cannot open or read the store or write the output, 16 usage error; import-coredata keeps \
            cdstore-import-coredata's (1 refused or failed).
            """,
        subcommands: [
            InfoCommand.self, QueryCommand.self, ExportCommand.self, ImportCommand.self, CompactCommand.self,
            VerifySubcommand.self,
            MigrateSubcommand.self, ImportCoreDataSubcommand.self, HistoryCommand.self, BackupCommand.self,
        ]
    )

    static func main() { ToolMain.run(Self.self, tool: "cdstore") }
}

/// `cdstore verify`: today's `cdstore-verify` (same options, same fsck exit codes).
struct VerifySubcommand: ToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check a store file and its WAL without changing them.",
        discussion: "Exit codes: 0 no problems, 4 problems found, 8 operational error, 16 usage error."
    )

    @OptionGroup var arguments: VerifyArguments

    func execute(tool: String) -> Int32 { arguments.execute(tool: tool) }
}

/// `cdstore migrate`: today's `cdstore-migrate` (same options, same exit codes).
struct MigrateSubcommand: ToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Migrate a store file to a version of a Core Data model (.xcdatamodeld).",
        discussion: "Exit codes: 0 migrated, 4 migration not possible (store unchanged), 8 operational error, "
            + "16 usage error."
    )

    @OptionGroup var arguments: MigrateArguments

    func execute(tool: String) -> Int32 { arguments.execute(tool: tool) }
}

/// `cdstore import-coredata`: today's `cdstore-import-coredata` (same options, same exit codes).
struct ImportCoreDataSubcommand: ToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-coredata",
        abstract: ImportCoreDataArguments.abstract,
        discussion: ImportCoreDataArguments.discussion
    )

    @OptionGroup var arguments: ImportCoreDataArguments

    func execute(tool: String) -> Int32 { arguments.execute(tool: tool) }
}
