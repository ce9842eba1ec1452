import CdObjects
import CdStoreCommands
import Foundation

// Where `import` reads records from: one file of one entity, each entity's file in a directory
// (what `export --output DIR` writes), or a JSON object of arrays by entity name (what `export
// --format json` writes to standard output). Each source can be read again from its start: the
// import reads its sources once per phase (ImportRun).
//
// Invariants:
//  IS1. ndjson and csv are read as streams (one record in memory at a time); a json file is
//       decoded whole once and kept, since JSON has no record boundaries without parsing.
//  IS2. A record that is not an object (json, ndjson), a line that is not JSON, or a CSV line with
//       another number of fields than its header is an `ImportFailure` naming the file and line.
//  IS3. Records are read in file order, and numbered from 1 in that order, the same on each pass.

/// A failure tied to one record: `<location>: <message>`.
struct ImportFailure: Error {
    var location: RecordLocation
    var message: String

    var toolFailure: ToolFailure { .usage("\(location): \(message)") }
}

/// One entity's records in one file (or one key of a JSON object of arrays).
final class ImportSource {
    let entity: EntityDescription
    let path: String
    let format: RecordFormat
    /// The key of the entity's array in a JSON object of arrays; nil for a file of one entity.
    let objectKey: String?
    /// The file's name as errors show it.
    let name: String
    /// The decoded records of a json file (IS1).
    private var decoded: [JSONField]?
    /// The value of `objectKey` in the JSON object of arrays, decoded once for all its entities.
    private let objectValue: JSONField?

    /// One entity's records in the file at `path`; for a JSON object of arrays, `objectKey` names
    /// the entity's key and `objectValue` is its value in the already decoded file.
    init(
        entity: EntityDescription, path: String, format: RecordFormat, objectKey: String? = nil,
        objectValue: JSONField? = nil
    ) {
        self.entity = entity
        self.path = path
        self.format = format
        self.objectKey = objectKey
        self.objectValue = objectValue
        name = URL(fileURLWithPath: path).lastPathComponent + (objectKey.map { " (\($0))" } ?? "")
    }

    /// Calls `body` with each record, in file order (IS2, IS3).
    func forEachRecord(_ body: (ImportRecord) throws -> Void) throws {
        switch format {
        case .json:
            for (i, item) in try jsonRecords().enumerated() {
                let location = RecordLocation(file: name, number: i + 1, isLine: false)
                guard case let .object(fields) = item else {
                    throw ImportFailure(location: location, message: "\(item.kindName) is not an object")
                }
                try body(ImportRecord(location: location, fields: fields.mapValues { .json($0) }))
            }
        case .ndjson:
            var reader = try LineReader(path: path)
            defer { reader.close() }
            let decoder = JSONDecoder()
            while let (number, line) = try reader.next() {
                let location = RecordLocation(file: name, number: number, isLine: true)
                guard !line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) else { continue }
                let value: JSONField
                do { value = try decoder.decode(JSONField.self, from: Data(line)) } catch {
                    throw ImportFailure(location: location, message: "not a JSON value")
                }
                guard case let .object(fields) = value else {
                    throw ImportFailure(location: location, message: "\(value.kindName) is not an object")
                }
                try body(ImportRecord(location: location, fields: fields.mapValues { .json($0) }))
            }
        case .csv:
            var reader = try csvReader()
            defer { reader.close() }
            do {
                guard let header = try reader.next() else { return }
                while let (line, fields) = try reader.next() {
                    let location = RecordLocation(file: name, number: line, isLine: true)
                    guard fields.count == header.fields.count else {
                        throw ImportFailure(
                            location: location,
                            message: "\(fields.count) fields, but the header (line \(header.line)) has "
                                + "\(header.fields.count)")
                    }
                    try body(
                        ImportRecord(
                            location: location,
                            fields: Dictionary(
                                zip(header.fields, fields.map { .text($0) }), uniquingKeysWith: { first, _ in first })
                        ))
                }
            } catch let e as CSVReader.Malformed {
                throw ImportFailure(
                    location: RecordLocation(file: name, number: e.line, isLine: true), message: e.reason)
            }
        case .table:
            throw ToolFailure.usage("import reads json, ndjson or csv, not a table")
        }
    }

    /// The column names of a csv file's header (checked before anything is written); nil for
    /// the JSON formats, whose keys are checked per record.
    func csvHeader() throws -> (line: Int, names: [String])? {
        guard format == .csv else { return nil }
        var reader = try csvReader()
        defer { reader.close() }
        do {
            guard let header = try reader.next() else { return nil }
            return (header.line, header.fields)
        } catch let e as CSVReader.Malformed {
            throw ImportFailure(location: RecordLocation(file: name, number: e.line, isLine: true), message: e.reason)
        }
    }

    private func csvReader() throws -> CSVReader {
        guard let reader = CSVReader(path: path) else { throw ToolFailure.operational("\(path): cannot open the file") }
        return reader
    }

    private func jsonRecords() throws -> [JSONField] {
        if let decoded { return decoded }
        let location = RecordLocation(file: name, number: 1, isLine: false)
        let records: [JSONField]
        if let objectKey {
            guard case let .array(items)? = objectValue else {
                throw ImportFailure(location: location, message: "the value of \"\(objectKey)\" is not an array")
            }
            records = items
        } else {
            guard case let .array(items) = try Self.decodeJSONFile(path) else {
                throw ImportFailure(location: location, message: "the file is not an array of objects")
            }
            records = items
        }
        decoded = records
        return records
    }

    /// The JSON value of the file at `path`.
    static func decodeJSONFile(_ path: String) throws -> JSONField {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ToolFailure.operational("\(path): cannot read the file")
        }
        do { return try JSONDecoder().decode(JSONField.self, from: data) } catch {
            throw ToolFailure.usage("\(path): not a JSON file")
        }
    }
}

/// Lines of a file read 64 KiB at a time, without their line break (IS1).
struct LineReader {
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false
    private var line = 0

    init(path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ToolFailure.operational("\(path): cannot open the file")
        }
        self.handle = handle
    }

    /// The next line and its 1-based number, or nil at the end.
    mutating func next() throws -> (Int, [UInt8])? {
        while true {
            if let end = buffer[start...].firstIndex(of: 0x0A) {
                defer { start = end + 1 }
                line += 1
                return (line, Array(buffer[start..<end]))
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                defer { start = buffer.count }
                line += 1
                return (line, Array(buffer[start...]))
            }
            buffer.removeFirst(start)
            start = 0
            let data = try handle.read(upToCount: 1 << 16) ?? Data()
            if data.isEmpty { atEnd = true } else { buffer.append(contentsOf: data) }
        }
    }

    func close() { try? handle.close() }
}
