import Foundation

// One field of a record `import` reads, as the file gave it: a JSON value (json, ndjson) or the
// text of a CSV field. The conversion to a property's value (ImportValueParser) is the same for
// both, except where JSON says more than text can (a number, true/false, an array, null).

/// A JSON value, decoded without losing what kind it was (a Bool is never a number).
enum JSONField: Decodable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([JSONField])
    case object([String: JSONField])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            // `-0.0` decodes as the integer 0; it stays the double it is, sign and all.
            if value == 0, let double = try? container.decode(Double.self), double.sign == .minus {
                self = .double(double)
            } else {
                self = .integer(value)
            }
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONField].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONField].self))
        }
    }

    /// What kind of value this is, for error messages.
    var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .integer, .double: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// A field of a record: a JSON value or CSV text.
enum ImportField {
    case json(JSONField)
    case text(String)
}

/// Where a record is in its file: `Employee.csv line 12` or `Employee.json record 3`.
struct RecordLocation: CustomStringConvertible {
    var file: String
    /// 1-based line (csv, ndjson) or position in the array (json).
    var number: Int
    var isLine: Bool

    var description: String { "\(file) \(isLine ? "line" : "record") \(number)" }
}

/// One record: its fields by column or key name, and where it is.
struct ImportRecord {
    var location: RecordLocation
    var fields: [String: ImportField]
}
