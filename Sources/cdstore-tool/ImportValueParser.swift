import CdObjects
import CdStoreCommands
import Foundation

// The fields of a record `import` reads, turned into property values: the inverse of ValueText,
// so that what `export` writes reads back to the same values (docs/CDSTORE.md, "import").
//
//   type              JSON                                CSV text
//   integer 16/32/64  a number without fraction, in range  digits, in range
//   double, float     a number, or "NaN", "Infinity",      Swift's form (1.5, 1e6, nan, inf)
//                     "-Infinity"
//   decimal           a string of digits (exact) or a      digits (exact), or NaN
//                     number
//   string            a string                             the text; empty is nil when optional
//   boolean           true / false                         true, false, 1, 0, yes, no
//   date              ISO 8601 (ISO8601Instant)            the same
//   binary, trans-    base64                               base64
//   formable
//   UUID, URI         a string                             the text
//   to-one            "Entity/key" or null                 Entity/key, or empty
//   to-many           an array of "Entity/key"             IDs separated by spaces
//
// Invariants:
//  VP1. A value is never changed to fit: a number out of its type's range, a fraction for an
//       integer, a string that is not a date or not base64, is an error naming the property and
//       the value, never a rounded or truncated value.
//  VP2. JSON null, and in CSV an empty field, is nil (an empty CSV field of a non-optional string
//       is the empty string; CSV has no way to tell the two apart, JSON does).
//  VP3. An object ID must name the relationship's destination entity or one of its sub-entities.

/// A failure to read one field: the property and what is wrong with the value.
struct ImportValueError: Error {
    var property: String
    var reason: String
}

/// Reads the values of one entity's properties from record fields.
struct ImportValueParser {
    let model: ObjectModel

    /// The value of `attribute` from `field` (VP1, VP2).
    func value(_ field: ImportField, attribute: AttributeDescription) throws -> CdValue {
        func fail(_ reason: String) -> ImportValueError { ImportValueError(property: attribute.name, reason: reason) }
        switch field {
        case .json(.null): return .null
        case let .text(text) where text.isEmpty:
            return attribute.type == .string && !attribute.isOptional ? .string("") : .null
        default: break
        }
        switch attribute.type {
        case .integer16, .integer32, .integer64:
            let range: ClosedRange<Int64> =
                switch attribute.type {
                case .integer16: Int64(Int16.min)...Int64(Int16.max)
                case .integer32: Int64(Int32.min)...Int64(Int32.max)
                default: Int64.min...Int64.max
                }
            let number: Int64?
            switch field {
            case let .json(.integer(v)): number = v
            case let .text(text): number = Int64(text)
            default: number = nil
            }
            guard let number else { throw fail("\(describe(field)) is not an integer") }
            guard range.contains(number) else { throw fail("\(number) is out of the range of \(attribute.type)") }
            return .integer(number)
        case .double, .float:
            let number: Double?
            switch field {
            case let .json(.integer(v)): number = Double(exactly: v)
            case let .json(.double(v)): number = v
            case let .json(.string(s)):
                number = ["NaN": Double.nan, "Infinity": .infinity, "-Infinity": -.infinity][s]
            case let .text(text): number = Double(text)
            default: number = nil
            }
            guard let number else { throw fail("\(describe(field)) is not a number") }
            if attribute.type == .float, number.isFinite, Double(Float(number)) != number {
                throw fail("\(number) is not exactly a float")
            }
            return .double(number)
        case .decimal:
            let number: Decimal?
            switch field {
            case let .json(.integer(v)): number = Decimal(v)
            case let .json(.double(v)): number = Decimal(string: "\(v)")
            case let .json(.string(s)), let .text(s): number = s == "NaN" ? Decimal.nan : Self.decimal(s)
            default: number = nil
            }
            guard let number else { throw fail("\(describe(field)) is not a decimal number") }
            return .decimal(number)
        case .string:
            switch field {
            case let .json(.string(s)), let .text(s): return .string(s)
            default: throw fail("\(describe(field)) is not a string")
            }
        case .boolean:
            switch field {
            case let .json(.bool(b)): return .bool(b)
            case let .text(text):
                switch text.lowercased() {
                case "true", "1", "yes": return .bool(true)
                case "false", "0", "no": return .bool(false)
                default: throw fail("\(describe(field)) is not a boolean (true or false)")
                }
            default: throw fail("\(describe(field)) is not a boolean")
            }
        case .date:
            guard let text = text(field), let date = ISO8601Instant.parse(text) else {
                throw fail("\(describe(field)) is not an ISO 8601 date (2026-11-26T21:50:07Z)")
            }
            return .date(date)
        case .binaryData, .transformable:
            guard let text = text(field), let data = Data(base64Encoded: text) else {
                throw fail("\(describe(field)) is not base64")
            }
            return .data(data)
        case .uuid:
            guard let text = text(field), let uuid = UUID(uuidString: text) else {
                throw fail("\(describe(field)) is not a UUID")
            }
            return .uuid(uuid)
        case .uri:
            guard let text = text(field), let url = URL(string: text) else {
                throw fail("\(describe(field)) is not a URI")
            }
            return .uri(url)
        }
    }

    /// The value of `relationship` from `field`: a to-one's target or a to-many's targets (VP3).
    func value(_ field: ImportField, relationship: RelationshipDescription) throws -> PropertyValue {
        func fail(_ reason: String) -> ImportValueError {
            ImportValueError(property: relationship.name, reason: reason)
        }
        let texts: [String]
        switch field {
        case .json(.null): texts = []
        case let .json(.string(s)): texts = [s]
        case let .json(.array(items)):
            texts = try items.map { item in
                guard case let .string(s) = item else { throw fail("\(item.kindName) is not an object ID") }
                return s
            }
        case let .text(text): texts = text.split(separator: " ").map(String.init)
        case let .json(other): throw fail("\(other.kindName) is not an object ID")
        }
        let ids = try texts.map { text in
            guard let id = objectID(text) else { throw fail("\"\(text)\" is not an object ID (Entity/key)") }
            guard model.isEntity(id.entity, kindOf: relationship.destination) else {
                throw fail("\(text) is not a \(relationship.destination)")
            }
            return id
        }
        if relationship.isToMany { return .toMany(ids) }
        guard ids.count <= 1 else { throw fail("a to-one names one object, not \(ids.count)") }
        return .toOne(ids.first)
    }

    /// `Entity/key` of an entity of the model with a key of 1 and up, or nil.
    func objectID(_ text: String) -> ObjectID? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, model.entity(named: String(parts[0])) != nil, let key = Int64(parts[1]), key > 0 else {
            return nil
        }
        return ObjectID(entity: String(parts[0]), primaryKey: key)
    }

    /// A decimal's exact value from its digits: nil unless the whole text is a number.
    private static func decimal(_ text: String) -> Decimal? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }) else {
            return nil
        }
        return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
    }

    private func text(_ field: ImportField) -> String? {
        switch field {
        case let .json(.string(s)), let .text(s): return s
        default: return nil
        }
    }

    private func describe(_ field: ImportField) -> String {
        switch field {
        case let .text(text), let .json(.string(text)): return "\"\(text)\""
        case let .json(.integer(v)): return "\(v)"
        case let .json(.double(v)): return "\(v)"
        case let .json(other): return other.kindName
        }
    }
}
