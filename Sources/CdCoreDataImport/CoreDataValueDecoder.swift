// Core Data's SQLite values → Cadmium values, per attribute type. SQLite's type affinity decides
// what a column hands back, not only what Core Data bound: TIMESTAMP and DECIMAL columns have
// NUMERIC affinity, so a whole-valued date or decimal comes back as INTEGER.
//
//   type            SQLite storage                    Cadmium value
//   Integer 16/32/64 INTEGER (REAL if whole)           .integer, checked against the type's range
//   Boolean         INTEGER 0 or 1                     .bool
//   Double          REAL or INTEGER                    .double
//   Float           REAL (a float32 value) or INTEGER  .double of the Float, checked for range
//   Decimal         REAL, INTEGER or TEXT ('NaN')      .decimal (REAL via its shortest round-trip text)
//   String          TEXT                               .string
//   Date            REAL or INTEGER, seconds since 2001-01-01 UTC   .date
//   Binary          BLOB                               .data; with external storage 0x01 + the bytes,
//                                                      or 0x02 + a UUID naming a file (ExternalData)
//   UUID            BLOB of 16 bytes (or TEXT)         .uuid
//   URI             TEXT                               .uri
//   Transformable   BLOB                               .data (the transformer's bytes, kept as they are;
//                                                      external storage as for Binary)
//
// A value of another storage class, or out of its type's range, is a `ValueProblem`: the
// importer lists the row (CoreDataBadRow) and never stores a changed value.

import CdObjects
import Foundation

/// Why a column's value cannot be stored as its attribute's type.
struct ValueProblem: Error {
    let message: String
}

enum CoreDataValueDecoder {
    /// The value of `column` for an attribute of `type`; `external` reads external binary data.
    static func value(
        _ row: SQLiteStatement, _ column: Int, type: AttributeType, external: ExternalData?
    ) throws(ValueProblem) -> CdValue {
        let storage = row.type(column)
        if storage == .null { return .null }
        func wrong() -> ValueProblem { ValueProblem(message: "\(storage) where a \(type.xmlName) belongs") }
        switch type {
        case .integer16, .integer32, .integer64:
            let v: Int64
            switch storage {
            case .integer: v = row.int64(column)
            case .real:
                let d = row.double(column)
                guard let exact = Int64(exactly: d) else { throw ValueProblem(message: "\(d) is not a whole number") }
                v = exact
            default: throw wrong()
            }
            if let range = type.integerRange, !range.contains(v) {
                throw ValueProblem(message: "\(v) does not fit \(type.xmlName)")
            }
            return .integer(v)
        case .boolean:
            guard storage == .integer else { throw wrong() }
            let v = row.int64(column)
            guard v == 0 || v == 1 else { throw ValueProblem(message: "\(v) is not a Boolean (0 or 1)") }
            return .bool(v == 1)
        case .double:
            guard storage == .integer || storage == .real else { throw wrong() }
            return .double(row.double(column))
        case .float:
            guard storage == .integer || storage == .real else { throw wrong() }
            let d = row.double(column)
            let f = Float(d)
            guard f.isFinite || !d.isFinite else { throw ValueProblem(message: "\(d) does not fit Float") }
            return .double(Double(f))
        case .decimal:
            switch storage {
            case .integer: return .decimal(Decimal(row.int64(column)))
            case .real:
                let d = row.double(column)
                guard d.isFinite, let decimal = Decimal(string: "\(d)", locale: Locale(identifier: "en_US_POSIX"))
                else { throw ValueProblem(message: "\(d) is not a Decimal") }
                return .decimal(decimal)
            case .text:
                let text = row.text(column) ?? ""
                if text == "NaN" { return .decimal(.nan) }
                guard let d = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), Double(text) != nil
                else { throw ValueProblem(message: "text '\(text.prefix(40))' is not a Decimal") }
                return .decimal(d)
            default: throw wrong()
            }
        case .string:
            guard storage == .text else { throw wrong() }
            return .string(row.text(column) ?? "")
        case .date:
            guard storage == .integer || storage == .real else { throw wrong() }
            let seconds = row.double(column)
            guard seconds.isFinite else { throw ValueProblem(message: "\(seconds) is not a date") }
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case .binaryData:
            guard storage == .blob else { throw wrong() }
            let bytes = row.blob(column)
            if let external { return .data(try external.resolve(bytes)) }
            return .data(bytes)
        case .uuid:
            if storage == .blob {
                let b = [UInt8](row.blob(column))
                guard b.count == 16 else { throw ValueProblem(message: "a UUID of \(b.count) bytes, not 16") }
                return .uuid(
                    UUID(
                        uuid: (
                            b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                            b[14], b[15]
                        )))
            }
            guard storage == .text, let u = UUID(uuidString: row.text(column) ?? "") else { throw wrong() }
            return .uuid(u)
        case .uri:
            guard storage == .text else { throw wrong() }
            let text = row.text(column) ?? ""
            guard let url = URL(string: text) else { throw ValueProblem(message: "'\(text.prefix(80))' is not a URI") }
            return .uri(url)
        case .transformable:
            guard storage == .blob else { throw wrong() }
            let bytes = row.blob(column)
            if let external { return .data(try external.resolve(bytes)) }
            return .data(bytes)
        }
    }
}
