import ArgumentParser
import CdObjects
import CdStoreCommands
import CdToolSupport
import Foundation

// `cdstore export STORE [--entity E]… --format json|ndjson|csv [--output DIR]`: every object of
// the chosen entities, in one read snapshot (docs/CDSTORE.md, "export").
//
// Invariants:
//  EX1. Each object is written once, under its own entity: entities are read without their
//       sub-entities, and abstract entities (which have no objects of their own) are skipped.
//  EX2. Memory is bounded by one page of objects (`pageSize` values at a time) plus each
//       entity's list of object IDs (16 bytes an object): the IDs are read first, in key order,
//       then the values a page at a time by primary key (`SELF IN %@`), written and dropped.
//  EX4. The progress bar (`ProgressLine`) is drawn on standard error only when it is a terminal
//       and the export has at least `progressMinimumObjects` objects; a pipe never gets one.
//  EX3. To standard output, json is one object of arrays by entity name and ndjson one line per
//       object (the objectID names the entity); csv, whose columns differ by entity, needs one
//       entity or `--output`. With `--output DIR`, each entity is `DIR/<Entity>.<format>`.

struct ExportCommand: ToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write every object of a store (or of some entities) as JSON, NDJSON or CSV."
    )

    /// Objects whose values are held in memory at once (EX2).
    static let pageSize = 512
    /// Exports smaller than this finish before a bar would be read (EX4).
    static let progressMinimumObjects = 20_000

    @Option(name: .long, help: "Export only this entity (repeatable); default: every entity.")
    var entity: [String] = []

    @Option(name: .long, help: "json, ndjson or csv.")
    var format: RecordFormat

    @Option(name: .long, help: "Write one file per entity into this directory (created when missing).")
    var output: String?

    @Argument(help: "The store's page file.")
    var store: String

    func validate() throws {
        guard format != .table else { throw ValidationError("export writes json, ndjson or csv, not a table") }
    }

    func execute(tool: String) -> Int32 {
        reportingFailures(tool: tool) {
            let session = try StoreSession.open(store)
            defer { session.close() }
            let chosen = entity.isEmpty ? session.model.entities : try entity.map { try session.entity($0) }
            let entities = chosen.filter { !$0.isAbstract }  // keeps EX1
            if output == nil, format == .csv, entities.count != 1 {  // keeps EX3
                throw ToolFailure.usage(
                    "csv to standard output needs exactly one entity (--entity E), or --output DIR for one file each")
            }
            if let output {
                do { try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true) } catch
                {
                    throw ToolFailure.operational("\(output): cannot create the directory")
                }
            }
            let stdout = output == nil ? OutputSink.standardOutput() : nil
            do {
                try session.store.read { snapshot in
                    let progress = try ExportProgress.forStandardError(entities: entities, snapshot: snapshot)
                    defer { progress?.line.finish() }
                    if format == .json, let stdout { try stdout.write("{") }
                    for (n, e) in entities.enumerated() {
                        let sink = try stdout ?? OutputSink.file("\(output!)/\(e.name).\(format.fileExtension)")
                        if format == .json, stdout != nil {
                            try sink.write((n == 0 ? "\n" : ",\n") + ValueText.jsonString(e.name) + ":")
                        }
                        try export(
                            e, session: session, snapshot: snapshot, to: sink, nested: stdout != nil, progress: progress
                        )
                        if stdout == nil { try sink.close() }
                    }
                    if format == .json, let stdout { try stdout.write(entities.isEmpty ? "}\n" : "\n}\n") }
                }
            } catch {
                throw ToolFailure.from(error, path: store)
            }
            try stdout?.close()
        }
    }

    /// Writes every object of `entity` (not of its sub-entities) to `sink` (EX2).
    private func export(
        _ entity: EntityDescription, session: StoreSession, snapshot: ObjectSnapshot, to sink: OutputSink,
        nested: Bool, progress: ExportProgress?
    ) throws {
        let columns = try session.columns(of: entity)
        var request = FetchRequest(entity: entity.name)
        request.includesSubentities = false
        let ids = try snapshot.fetchIDs(request)
        var writer = RecordWriter(format: format, columns: columns)
        try sink.write(writer.header())
        for start in stride(from: 0, to: ids.count, by: Self.pageSize) {
            let page = Array(ids[start..<min(start + Self.pageSize, ids.count)])
            var pageRequest = request
            pageRequest.predicate = try CdPredicate(format: "SELF IN %@", page)
            let fetched = try snapshot.fetchObjects(pageRequest)
            let values = Dictionary(fetched.map { ($0.id, $0.values) }, uniquingKeysWith: { first, _ in first })
            for id in page {
                let row = try ObjectRow(id: id, stored: values[id] ?? nil, columns: columns, snapshot: snapshot)
                try sink.write(writer.row(row))
            }
            progress?.advance(entity: entity.name, by: page.count)
        }
        // Nested in the object of arrays by entity (EX3), the array's closing line has no newline.
        let footer = writer.footer()
        try sink.write(nested && format == .json ? String(footer.dropLast()) : footer)
    }
}

/// The export's progress bar over all its objects (EX4).
final class ExportProgress {
    let line = ProgressLine(labelWidth: 24)
    private let total: Int
    private var done = 0

    private init(total: Int) { self.total = total }

    /// A bar when standard error is a terminal and the export is large enough, else nil.
    static func forStandardError(entities: [EntityDescription], snapshot: ObjectSnapshot) throws -> ExportProgress? {
        guard isatty(STDERR_FILENO) == 1 else { return nil }
        let total = try entities.reduce(0) { sum, entity in
            var request = FetchRequest(entity: entity.name)
            request.includesSubentities = false
            return sum + (try snapshot.count(request))
        }
        return total >= ExportCommand.progressMinimumObjects ? ExportProgress(total: total) : nil
    }

    func advance(entity: String, by count: Int) {
        done += count
        line.update(label: entity, fraction: Double(done) / Double(total))
    }
}
