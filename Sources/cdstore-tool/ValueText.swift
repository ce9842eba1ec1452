import CdObjects
import CdStoreCommands
import Foundation

// How values are written, in every output format (docs/CDSTORE.md, "Values"):
//
//   value          JSON                         CSV and table
//   null           null                         empty (table: nil)
//   integer        number                       digits
//   double         number; NaN and infinities   Swift's shortest round-trip form
//                  as the strings "NaN",
//                  "Infinity", "-Infinity"
//   decimal        string of its exact digits   its exact digits
//   string         string                       the string
//   boolean        true / false                 true / false
//   date           ISO 8601 string, UTC, with as many fraction digits as read back exactly
//   binary data    base64 string                base64
//   UUID, URI      string                       the string
//   to-one         "Entity/key" or null         Entity/key
//   to-many        array of "Entity/key"        the IDs separated by spaces

enum ValueText {
    /// `value` as a JSON value.
    static func json(_ value: PropertyValue?) -> String {
        switch value {
        case nil, .attribute(.null)?, .toOne(nil)?: return "null"
        case let .attribute(v)?: return json(v)
        case let .toOne(id?)?: return jsonString(id.description)
        case let .toMany(ids)?: return "[" + ids.map { jsonString($0.description) }.joined(separator: ",") + "]"
        }
    }

    static func json(_ value: CdValue) -> String {
        switch value {
        case .null: return "null"
        case let .integer(v): return String(v)
        case let .double(v):
            if v.isNaN { return "\"NaN\"" }
            if v.isInfinite { return v > 0 ? "\"Infinity\"" : "\"-Infinity\"" }
            return "\(v)"
        case let .bool(v): return v ? "true" : "false"
        default: return jsonString(plain(value))
        }
    }

    /// `value` as text for CSV and tables; nil for null.
    static func plain(_ value: PropertyValue?) -> String? {
        switch value {
        case nil, .attribute(.null)?, .toOne(nil)?: return nil
        case let .attribute(v)?: return plain(v)
        case let .toOne(id?)?: return id.description
        case let .toMany(ids)?: return ids.map(\.description).joined(separator: " ")
        }
    }

    static func plain(_ value: CdValue) -> String {
        switch value {
        case .null: return ""
        case let .integer(v): return String(v)
        case let .double(v): return "\(v)"
        case let .decimal(v): return "\(v)"
        case let .string(v): return v
        case let .bool(v): return v ? "true" : "false"
        case let .date(v): return iso8601(v)
        case let .data(v): return v.base64EncodedString()
        case let .uuid(v): return v.uuidString
        case let .uri(v): return v.absoluteString
        }
    }

    /// `text` as a JSON string literal (RFC 8259: quote, backslash and control characters escaped).
    static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20: out += String(format: "\\u%04x", c.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// `text` as one CSV field (RFC 4180: quoted when it holds a comma, quote or line break).
    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `date` in ISO 8601, UTC: `2026-11-26T21:50:07Z`, with the fraction digits that read back
    /// to the same instant (`2026-11-26T21:50:07.25Z`) when it is not a whole second.
    static func iso8601(_ date: Date) -> String { ISO8601Instant.format(date) }
}
