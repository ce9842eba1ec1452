import Foundation

// A streaming RFC 4180 reader: records of fields from a file read 64 KiB at a time, so a file of
// any size is read in bounded memory (one chunk plus one record).
//
// Invariants:
//  CR1. A quoted field may hold commas, doubled quotes (one quote) and line breaks; a record ends
//       at a line break (LF or CRLF) outside quotes. A quote inside an unquoted field, text after
//       a closing quote, or a file ending inside quotes is a `CSVReader.Malformed` naming the line.
//  CR2. `line` of a record is the line its first field starts on (1-based), so an error about a
//       record names the line a person finds it at, even after multi-line fields.
//  CR3. Fields are UTF-8; a field that is not is `Malformed`, never replaced characters.
//  CR4. An empty line between records is skipped; a final line break adds no record.

/// Records of an RFC 4180 file, read as a stream (CR1–CR4).
package struct CSVReader {
    /// A CSV syntax error at `line`.
    package struct Malformed: Error {
        package var line: Int
        package var reason: String
    }

    private let handle: FileHandle
    private var chunk: [UInt8] = []
    private var position = 0
    private var atEnd = false
    private var currentLine = 1

    /// A reader of the file at `path`, or nil when it cannot be opened.
    package init?(path: String) {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        self.handle = handle
    }

    /// Bytes read so far, for a progress bar.
    package private(set) var bytesRead = 0

    private mutating func nextByte() throws -> UInt8? {
        if position == chunk.count {
            guard !atEnd else { return nil }
            let data = try handle.read(upToCount: 1 << 16) ?? Data()
            if data.isEmpty {
                atEnd = true
                return nil
            }
            chunk = Array(data)
            position = 0
            bytesRead += data.count
        }
        defer { position += 1 }
        return chunk[position]
    }

    private mutating func peekByte() throws -> UInt8? {
        guard let byte = try nextByte() else { return nil }
        position -= 1
        return byte
    }

    /// The next record and the line it starts on, or nil at the end of the file (CR1–CR4).
    package mutating func next() throws -> (line: Int, fields: [String])? {
        // Skip empty lines between records (CR4).
        while let byte = try peekByte(), byte == 0x0A || byte == 0x0D {
            _ = try nextByte()
            if byte == 0x0A { currentLine += 1 }
        }
        guard try peekByte() != nil else { return nil }
        let start = currentLine
        var fields: [String] = []
        var field: [UInt8] = []
        var quoted = false
        var inQuotes = false
        var afterQuote = false
        func finish() throws {
            guard let text = String(validating: field, as: UTF8.self) else {  // keeps CR3
                throw Malformed(line: start, reason: "field \(fields.count + 1) is not UTF-8")
            }
            fields.append(text)
            field.removeAll(keepingCapacity: true)
            quoted = false
            afterQuote = false
        }
        while true {
            guard let byte = try nextByte() else {
                if inQuotes { throw Malformed(line: start, reason: "the file ends inside a quoted field") }
                try finish()
                return (start, fields)
            }
            if inQuotes {
                if byte == 0x22 {
                    if try peekByte() == 0x22 {
                        _ = try nextByte()
                        field.append(0x22)
                    } else {
                        inQuotes = false
                        afterQuote = true
                    }
                } else {
                    if byte == 0x0A { currentLine += 1 }
                    field.append(byte)
                }
                continue
            }
            switch byte {
            case 0x2C:  // ,
                try finish()
            case 0x0A:
                currentLine += 1
                try finish()
                return (start, fields)
            case 0x0D:
                if try peekByte() == 0x0A { continue }
                field.append(byte)
            case 0x22:  // "
                guard field.isEmpty, !quoted else {
                    throw Malformed(line: currentLine, reason: "a quote inside an unquoted field")
                }
                quoted = true
                inQuotes = true
            default:
                if afterQuote {
                    throw Malformed(line: currentLine, reason: "text after the closing quote of a field")
                }
                field.append(byte)
            }
        }
    }

    package func close() { try? handle.close() }
}
