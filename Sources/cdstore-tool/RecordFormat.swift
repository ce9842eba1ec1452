import ArgumentParser
import CdObjects
import Foundation

// The output formats of `query` and `export`, and one object's row in each (docs/CDSTORE.md):
//
//   table   aligned columns under a header (query only); bold header only on a terminal
//   json    an array of objects, one per line: {"objectID":"Employee/3","name":"Ada",…}
//   ndjson  one such object per line, nothing around them
//   csv     RFC 4180: a header line `objectID,name,…`, then one line per object

/// How `query` and `export` write objects.
enum RecordFormat: String, ExpressibleByArgument, CaseIterable {
    case table
    case json
    case ndjson
    case csv

    /// The file name extension `export --output` uses.
    var fileExtension: String { rawValue }
}

/// Writes objects in one format to a sink, one at a time (no object is kept after it is written).
struct RecordWriter {
    let format: RecordFormat
    let columns: [Column]
    /// To-ones written as nested objects in json and ndjson (`query --expand`).
    let expansion: ToOneExpansion?
    private var written = 0

    init(format: RecordFormat, columns: [Column], expansion: ToOneExpansion? = nil) {
        precondition(format != .table, "tables are written by TableWriter")
        self.format = format
        self.columns = columns
        self.expansion = expansion
    }

    /// What comes before the first object.
    func header() -> String {
        switch format {
        case .json: return "["
        case .csv: return ([objectIDColumn] + columns.map(\.name)).map(ValueText.csvField).joined(separator: ",") + "\n"
        case .ndjson, .table: return ""
        }
    }

    /// One object, with what separates it from the previous one.
    mutating func row(_ row: ObjectRow) -> String {
        defer { written += 1 }
        switch format {
        case .json: return (written == 0 ? "\n" : ",\n") + Self.jsonObject(row, columns: columns, expansion: expansion)
        case .ndjson: return Self.jsonObject(row, columns: columns, expansion: expansion) + "\n"
        case .csv:
            let fields = [row.id.description] + row.values.map { ValueText.plain($0) ?? "" }
            return fields.map(ValueText.csvField).joined(separator: ",") + "\n"
        case .table: return ""
        }
    }

    /// What comes after the last object.
    func footer() -> String { format == .json ? (written == 0 ? "]\n" : "\n]\n") : "" }

    /// One object as a one-line JSON object: its ID, then the columns in order.
    static func jsonObject(_ row: ObjectRow, columns: [Column], expansion: ToOneExpansion? = nil) -> String {
        var parts = ["\"\(objectIDColumn)\":" + ValueText.jsonString(row.id.description)]
        for (i, (column, value)) in zip(columns, row.values).enumerated() {
            var text = ValueText.json(value)
            if let nested = expansion?.columns(ofExpanded: i) {
                text = (row.expansions[i] ?? nil).map { jsonObject($0, columns: nested) } ?? "null"
            }
            parts.append(ValueText.jsonString(column.name) + ":" + text)
        }
        return "{" + parts.joined(separator: ",") + "}"
    }
}

/// A buffered writer to standard output or a file; a failed write is an operational failure
/// naming the destination.
final class OutputSink {
    private let handle: FileHandle
    private let name: String
    private var buffer = Data()
    private let ownsHandle: Bool

    static func standardOutput() -> OutputSink {
        OutputSink(handle: .standardOutput, name: "standard output", ownsHandle: false)
    }

    /// Creates (or truncates) the file at `path`.
    static func file(_ path: String) throws -> OutputSink {
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let handle = FileHandle(forWritingAtPath: path)
        else { throw ToolFailure.operational("\(path): cannot create the file") }
        return OutputSink(handle: handle, name: path, ownsHandle: true)
    }

    private init(handle: FileHandle, name: String, ownsHandle: Bool) {
        self.handle = handle
        self.name = name
        self.ownsHandle = ownsHandle
    }

    func write(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { try flush() }
    }

    func flush() throws {
        guard !buffer.isEmpty else { return }
        do { try handle.write(contentsOf: buffer) } catch {
            throw ToolFailure.operational("\(name): cannot write (\(error))")
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes, and closes a file this sink created.
    func close() throws {
        try flush()
        if ownsHandle { try? handle.close() }
    }
}
