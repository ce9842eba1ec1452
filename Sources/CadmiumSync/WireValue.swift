// How a property's value travels and sits on the server: a JSON object {"t": tag, "v": payload}
// in a `jsonb` column. Numbers travel as strings, so that 64-bit integers and doubles keep every
// bit (JSON numbers are doubles to many readers). Relationships travel as global IDs.
//
//   tag  value                      payload
//   n    CdValue.null               (none)
//   i    .integer                   decimal digits
//   f    .double                    Swift's shortest round-tripping form
//   d    .decimal                   Decimal's description
//   s    .string                    the string
//   b    .bool                      true / false (JSON)
//   t    .date                      seconds since 2001-01-01, as for `f`
//   x    .data                      base64
//   u    .uuid                      UUID string
//   l    .uri                       absolute string
//   r    to-one                     a global ID string, or no "v" for nil
//   m    to-many                    an array of global ID strings (unordered: sorted)

import CdObjects
import Foundation

/// A property value in its server form.
enum WireValue: Sendable, Hashable {
    case attribute(CdValue)
    case toOne(UUID?)
    case toMany([UUID])

    /// The JSON text of the value.
    var json: String {
        func object(_ tag: String, _ payload: String?) -> String {
            guard let payload else { return "{\"t\":\"\(tag)\"}" }
            return "{\"t\":\"\(tag)\",\"v\":\(payload)}"
        }
        func quoted(_ s: String) -> String {
            let data = (try? JSONEncoder().encode([s])) ?? Data("[\"\"]".utf8)
            return String(decoding: data.dropFirst().dropLast(), as: UTF8.self)
        }
        switch self {
        case let .toOne(id): return object("r", id.map { quoted($0.uuidString) })
        case let .toMany(ids): return object("m", "[" + ids.map { quoted($0.uuidString) }.joined(separator: ",") + "]")
        case let .attribute(v):
            switch v {
            case .null: return object("n", nil)
            case let .integer(i): return object("i", quoted(String(i)))
            case let .double(d): return object("f", quoted(String(d)))
            case let .decimal(d): return object("d", quoted(d.description))
            case let .string(s): return object("s", quoted(s))
            case let .bool(b): return object("b", b ? "true" : "false")
            case let .date(t): return object("t", quoted(String(t.timeIntervalSinceReferenceDate)))
            case let .data(x): return object("x", quoted(x.base64EncodedString()))
            case let .uuid(u): return object("u", quoted(u.uuidString))
            case let .uri(l): return object("l", quoted(l.absoluteString))
            }
        }
    }

    /// Decodes the JSON text of a value; `where_` names it in the error.
    init(json text: String, where where_: String) throws {
        func bad(_ why: String) -> CdSyncError {
            CdSyncError(.badServerValue, "\(where_): \(why) in \(text.prefix(200))")
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let tag = object["t"] as? String
        else { throw bad("not a {\"t\": …} object") }
        let v = object["v"]
        func string() throws -> String {
            guard let s = v as? String else { throw bad("the payload is not a string") }
            return s
        }
        func id(_ s: String) throws -> UUID {
            guard let u = UUID(uuidString: s) else { throw bad("\(s) is not a global ID") }
            return u
        }
        switch tag {
        case "n": self = .attribute(.null)
        case "i":
            guard let i = Int64(try string()) else { throw bad("not a 64-bit integer") }
            self = .attribute(.integer(i))
        case "f":
            guard let d = Double(try string()) else { throw bad("not a double") }
            self = .attribute(.double(d))
        case "d":
            guard let d = Decimal(string: try string(), locale: Locale(identifier: "en_US_POSIX")) else {
                throw bad("not a decimal")
            }
            self = .attribute(.decimal(d))
        case "s": self = .attribute(.string(try string()))
        case "b":
            guard let b = v as? Bool else { throw bad("not a boolean") }
            self = .attribute(.bool(b))
        case "t":
            guard let t = Double(try string()) else { throw bad("not a date") }
            self = .attribute(.date(Date(timeIntervalSinceReferenceDate: t)))
        case "x":
            guard let x = Data(base64Encoded: try string()) else { throw bad("not base64") }
            self = .attribute(.data(x))
        case "u": self = .attribute(.uuid(try id(try string())))
        case "l":
            guard let l = URL(string: try string()) else { throw bad("not a URL") }
            self = .attribute(.uri(l))
        case "r": self = .toOne(v == nil || v is NSNull ? nil : try id(try string()))
        case "m":
            guard let list = v as? [String] else { throw bad("not a list of global IDs") }
            self = .toMany(try list.map(id))
        default: throw bad("unknown tag \(tag)")
        }
    }
}
