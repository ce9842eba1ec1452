import ArgumentParser
import CdObjects
import CdStoreCommands
import Foundation

// `cdstore query STORE ENTITY [PREDICATE [ARG…]]`: the objects of an entity (and its
// sub-entities) that match an NSPredicate format string, sorted, paged, as a table or in a
// machine format (docs/CDSTORE.md, "query"). The query runs in one read snapshot.

struct QueryCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Show the objects of an entity that match a predicate.",
        discussion: """
            The predicate is NSPredicate's format: query app.cdstore Employee "salary > %@ AND name BEGINSWITH %@" \
            100000 A. An argument that reads as a number is a number, Entity/key is an object ID, anything \
            else a string.
            """
    )

    // Unconditional: `--sort -salary` takes `-salary` as the value, not as an option.
    @Option(
        name: .long, parsing: .unconditional,
        help: "Sort keys, comma-separated; - in front for descending (name,-salary).")
    var sort: String?

    @Option(name: .long, help: "At most N objects.")
    var limit: Int?

    @Option(name: .long, help: "Skip the first N objects.")
    var offset = 0

    @Option(name: .long, help: "Only these properties, comma-separated, in this order.")
    var properties: String?

    @Option(name: .long, help: "Show these to-ones' targets instead of their IDs, comma-separated (department).")
    var expand: String?

    @Flag(name: .long, help: "Print only the number of matching objects.")
    var count = false

    @Option(name: .long, help: "table (default), json, ndjson or csv.")
    var format: RecordFormat = .table

    @Argument(help: "The store's page file.")
    var store: String

    @Argument(help: "The entity to query (its sub-entities' objects are included).")
    var entity: String

    @Argument(help: "An NSPredicate format string, and the values of its %@ arguments.")
    var predicate: [String] = []

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must not be negative") }
        guard offset >= 0 else { throw ValidationError("--offset must not be negative") }
    }

    func execute(tool: String) -> Int32 {
        reportingFailures(tool: tool) {
            let session = try StoreSession.open(store)
            defer { session.close() }
            let description = try session.entity(entity)
            var request = FetchRequest(entity: description.name)
            if let format = predicate.first {
                let arguments = predicate.dropFirst().map { QueryArguments.argument($0, model: session.model) }
                do { request.predicate = try CdPredicate(format: format, argumentArray: arguments) } catch {
                    throw ToolFailure.usage(ToolFailure.oneLine("predicate \"\(format)\": \(error)"))
                }
            }
            if let sort {
                request.sortDescriptors = try QueryArguments.sort(sort)
                for key in request.sortDescriptors { try session.checkSortKey(key.key, of: description) }
            }
            request.limit = limit
            request.offset = offset
            let columns = try session.columns(
                of: description, only: try properties.map { try QueryArguments.list($0, option: "--properties") })
            let expansion = try ToOneExpansion(
                try expand.map { try QueryArguments.list($0, option: "--expand") } ?? [], columns: columns,
                entity: description, session: session)
            let out = OutputSink.standardOutput()
            do {
                try session.store.read { snapshot in
                    if count {
                        let n = try snapshot.count(request)
                        try out.write(format == .json || format == .ndjson ? "{\"count\":\(n)}\n" : "\(n)\n")
                        return
                    }
                    var rows = try snapshot.fetchObjects(request).map {
                        try ObjectRow(id: $0.id, stored: $0.values, columns: columns, snapshot: snapshot)
                    }
                    try expansion.expand(&rows, snapshot: snapshot)
                    if format == .table || format == .csv, !expansion.isEmpty {  // flat forms (TE3)
                        rows = rows.map(expansion.flatRow)
                    }
                    let flatColumns = format == .table || format == .csv ? expansion.flatColumns(columns) : columns
                    if format == .table {
                        let table = TableWriter(columns: flatColumns, colours: ToolOutput.standardOutputIsTerminal)
                        try out.write(table.render(rows))
                        return
                    }
                    var writer = RecordWriter(format: format, columns: flatColumns, expansion: expansion)
                    try out.write(writer.header())
                    for row in rows { try out.write(writer.row(row)) }
                    try out.write(writer.footer())
                }
            } catch {
                throw ToolFailure.from(error, path: store)
            }
            try out.close()
        }
    }
}
