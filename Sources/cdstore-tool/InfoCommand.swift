import ArgumentParser
import CdStoreCommands
import Foundation

// `cdstore info STORE [--format text|json]`: what a store is and holds (StoreInfo).

struct InfoCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show a store's format, sizes, model, and each entity with its object count."
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text
        case json
    }

    @Option(name: .long, help: "text (for a person) or json (one document, docs/CDSTORE.md).")
    var format: Format = .text

    @Argument(help: "The store's page file.")
    var store: String

    func execute(tool: String) -> Int32 {
        reportingFailures(tool: tool) {
            let session = try StoreSession.open(store)
            defer { session.close() }
            let info: StoreInfo
            do { info = try StoreInfo.read(session) } catch { throw ToolFailure.from(error, path: store) }
            let out = OutputSink.standardOutput()
            switch format {
            case .text: try out.write(info.text(colours: ToolOutput.standardOutputIsTerminal))
            case .json:
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
                try out.write(String(decoding: try encoder.encode(info), as: UTF8.self) + "\n")
            }
            try out.close()
        }
    }
}
