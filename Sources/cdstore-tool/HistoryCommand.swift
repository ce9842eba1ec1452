import ArgumentParser
import CdObjects
import CdStoreCommands
import Foundation

// `cdstore history STORE [--after TOKEN] [--author A] [--entity E]`: the persistent history a
// store records (StoreOptions.history = .tracked), oldest first, read in one snapshot
// (docs/CDSTORE.md, "history").
//
// Invariants:
//  HC1. A token is written and read as `STOREID#N` (CdHistoryToken's description); `--after N`
//       alone means this store's N. A token of another history, or one older than what is kept,
//       is the API's 134301 as a one-line error.
//  HC2. The table has one line per change (the transaction's number, time, author and context on
//       its first line); json and ndjson have one object per transaction with its changes, the
//       updated properties sorted, tombstones with their values as `export` writes values.

struct HistoryCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Show the persistent history a store records: its transactions and their changes.",
        discussion: """
            A transaction's token is STOREID#N; --after takes one (or N for this store) and shows what came \
            after it, as Cd.history(after:) does.
            """
    )

    @Option(name: .long, help: "Only transactions after this token (STOREID#N, or N).")
    var after: String?

    @Option(name: .long, help: "Only transactions of this author.")
    var author: String?

    @Option(name: .long, help: "Only changes of objects of this entity (and its sub-entities).")
    var entity: String?

    @Option(name: .long, help: "table (default), json or ndjson.")
    var format: RecordFormat = .table

    @Argument(help: "The store's page file.")
    var store: String

    func validate() throws {
        if format == .csv { throw ValidationError("history writes a table, json or ndjson, not csv") }
    }

    func execute(tool: String) -> Int32 {
        reportingFailures(tool: tool) {
            let session = try StoreSession.open(store)
            defer { session.close() }
            guard session.store.isHistoryTracked else {
                throw ToolFailure.operational(
                    "\(store): the store records no persistent history (StoreOptions.history = .tracked starts it)")
            }
            if let entity { _ = try session.entity(entity) }
            let token = try after.map { try Self.token($0, session: session) }
            let transactions: [CdHistoryTransaction]
            do { transactions = try session.store.history(after: token, author: author, entity: entity) } catch {
                throw ToolFailure.from(error, path: store)
            }
            let out = OutputSink.standardOutput()
            switch format {
            case .json:
                try out.write("[" + transactions.map { "\n" + Self.json($0) }.joined(separator: ",") + "\n]\n")
            case .ndjson:
                for t in transactions { try out.write(Self.json(t) + "\n") }
            default:
                try out.write(Self.table(transactions))
            }
            try out.close()
        }
    }

    /// `STOREID#N`, or `N` of this store's history (HC1).
    static func token(_ text: String, session: StoreSession) throws -> CdHistoryToken {
        let parts = text.split(separator: "#", omittingEmptySubsequences: false)
        if parts.count == 1, let number = UInt64(text) {
            guard let last = try session.store.lastHistoryToken() else {
                throw ToolFailure.usage("--after \(text): the store has recorded no transaction yet")
            }
            return CdHistoryToken(storeID: last.storeID, number: number)
        }
        guard parts.count == 2, let id = UUID(uuidString: String(parts[0])), let number = UInt64(parts[1]) else {
            throw ToolFailure.usage("--after \(text): not a history token (STOREID#N, or N)")
        }
        return CdHistoryToken(storeID: id, number: number)
    }

    /// One transaction as a one-line JSON object (HC2).
    static func json(_ t: CdHistoryTransaction) -> String {
        var parts = [
            "\"token\":" + ValueText.jsonString(t.token.description), "\"number\":\(t.token.number)",
            "\"timestamp\":" + ValueText.jsonString(ValueText.iso8601(t.timestamp)),
            "\"author\":" + (t.author.map(ValueText.jsonString) ?? "null"),
            "\"contextName\":" + (t.contextName.map(ValueText.jsonString) ?? "null"),
        ]
        let changes = t.changes.map { c in
            var fields = [
                "\"objectID\":" + ValueText.jsonString(c.objectID.description),
                "\"kind\":" + ValueText.jsonString("\(c.kind)"),
                "\"updatedProperties\":["
                    + c.updatedProperties.sorted().map(ValueText.jsonString).joined(separator: ",")
                    + "]",
            ]
            if let tombstone = c.tombstone {
                fields.append(
                    "\"tombstone\":{"
                        + tombstone.sorted { $0.key < $1.key }.map {
                            ValueText.jsonString($0.key) + ":" + ValueText.json($0.value)
                        }
                        .joined(separator: ",") + "}")
            }
            return "{" + fields.joined(separator: ",") + "}"
        }
        parts.append("\"changes\":[" + changes.joined(separator: ",") + "]")
        return "{" + parts.joined(separator: ",") + "}"
    }

    /// The transactions as an aligned table, one line per change (HC2).
    static func table(_ transactions: [CdHistoryTransaction]) -> String {
        let header = ["#", "time", "author", "context", "object", "change", "properties"]
        var rows: [[String]] = []
        for t in transactions {
            let first = ["\(t.token.number)", ValueText.iso8601(t.timestamp), t.author ?? "-", t.contextName ?? "-"]
            if t.changes.isEmpty { rows.append(first + ["", "", ""]) }
            for (i, c) in t.changes.enumerated() {
                var properties = c.updatedProperties.sorted().joined(separator: ",")
                if let tombstone = c.tombstone, !tombstone.isEmpty {
                    properties +=
                        (properties.isEmpty ? "" : " ") + "tombstone "
                        + tombstone.sorted { $0.key < $1.key }.map { "\($0.key)=\(ValueText.plain($0.value))" }
                        .joined(separator: ",")
                }
                rows.append((i == 0 ? first : ["", "", "", ""]) + [c.objectID.description, "\(c.kind)", properties])
            }
        }
        var widths = header.map(\.count)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, cell in
                i == 0
                    ? String(repeating: " ", count: widths[i] - cell.count) + cell
                    : cell + String(repeating: " ", count: widths[i] - cell.count)
            }.joined(separator: "  ").trimmingTrailingSpaces() + "\n"
        }
        return line(header) + line(widths.map { String(repeating: "-", count: $0) }) + rows.map(line).joined()
    }
}
