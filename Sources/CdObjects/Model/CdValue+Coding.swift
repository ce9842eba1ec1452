// A Codable form of `CdValue` for the model types only (default values, validation bounds).
// `CdValue` itself is not made Codable here: the record layer owns its byte encoding, and a
// public conformance added by one layer would collide with another's. This wrapper stays
// internal; its keyed form is: {"type": tag, "value": payload}.

import Foundation

struct CodableCdValue: Codable, Hashable, Sendable {
    var value: CdValue

    init(_ value: CdValue) { self.value = value }

    private enum CodingKeys: String, CodingKey { case type, value }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch value {
        case .null: try c.encode("null", forKey: .type)
        case let .integer(v): try c.encode("integer", forKey: .type); try c.encode(v, forKey: .value)
        case let .double(v): try c.encode("double", forKey: .type); try c.encode(v, forKey: .value)
        case let .decimal(v): try c.encode("decimal", forKey: .type); try c.encode(v.description, forKey: .value)
        case let .string(v): try c.encode("string", forKey: .type); try c.encode(v, forKey: .value)
        case let .bool(v): try c.encode("bool", forKey: .type); try c.encode(v, forKey: .value)
        case let .date(v):
            try c.encode("date", forKey: .type); try c.encode(v.timeIntervalSinceReferenceDate, forKey: .value)
        case let .data(v): try c.encode("data", forKey: .type); try c.encode(v, forKey: .value)
        case let .uuid(v): try c.encode("uuid", forKey: .type); try c.encode(v.uuidString, forKey: .value)
        case let .uri(v): try c.encode("uri", forKey: .type); try c.encode(v.absoluteString, forKey: .value)
        }
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let type = try c.decode(String.self, forKey: .type)
        func bad(_ text: String) -> DecodingError {
            .dataCorruptedError(forKey: .value, in: c, debugDescription: "invalid \(type) value \(text)")
        }
        switch type {
        case "null": value = .null
        case "integer": value = .integer(try c.decode(Int64.self, forKey: .value))
        case "double": value = .double(try c.decode(Double.self, forKey: .value))
        case "decimal":
            let text = try c.decode(String.self, forKey: .value)
            if text == "NaN" {
                value = .decimal(.nan)  // `Decimal.nan.description`, which `Decimal(string:)` does not parse
            } else {
                guard let d = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else { throw bad(text) }
                value = .decimal(d)
            }
        case "string": value = .string(try c.decode(String.self, forKey: .value))
        case "bool": value = .bool(try c.decode(Bool.self, forKey: .value))
        case "date": value = .date(Date(timeIntervalSinceReferenceDate: try c.decode(Double.self, forKey: .value)))
        case "data": value = .data(try c.decode(Data.self, forKey: .value))
        case "uuid":
            let text = try c.decode(String.self, forKey: .value)
            guard let u = UUID(uuidString: text) else { throw bad(text) }
            value = .uuid(u)
        case "uri":
            let text = try c.decode(String.self, forKey: .value)
            guard let u = URL(string: text) else { throw bad(text) }
            value = .uri(u)
        default:
            throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown value type \(type)")
        }
    }
}
