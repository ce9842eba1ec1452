// The type of an attribute, with Core Data's names for it: the `attributeType` spelling in a
// `.xcdatamodel` file and Core Data's `NSAttributeType` raw value (integer 16 = 100 up to URI =
// 1200 and transformable = 1800, as `coreDataRawValue` lists them), which the version hash uses
// as the type's stored tag — so those numbers are frozen.

import Foundation

/// The type of a stored or transient attribute.
///
/// Each case maps to one ``CdValue`` case at run time: the integer types to `.integer`,
/// `float` and `double` to `.double`, `transformable` to `.data` (the transformed bytes).
public enum AttributeType: Sendable, Hashable, Codable, CustomStringConvertible {
    case integer16
    case integer32
    case integer64
    case decimal
    case double
    case float
    case string
    case boolean
    case date
    case binaryData
    case uuid
    case uri
    /// Stored as bytes produced by the named value transformer (`nil`: the default secure coder).
    case transformable(transformerName: String?)

    /// Core Data's `NSAttributeType` raw value. Frozen: the version hash encodes it.
    public var coreDataRawValue: UInt16 {
        switch self {
        case .integer16: return 100
        case .integer32: return 200
        case .integer64: return 300
        case .decimal: return 400
        case .double: return 500
        case .float: return 600
        case .string: return 700
        case .boolean: return 800
        case .date: return 900
        case .binaryData: return 1000
        case .uuid: return 1100
        case .uri: return 1200
        case .transformable: return 1800
        }
    }

    /// The `attributeType` spelling in a `.xcdatamodel` `contents` file.
    public var xmlName: String {
        switch self {
        case .integer16: return "Integer 16"
        case .integer32: return "Integer 32"
        case .integer64: return "Integer 64"
        case .decimal: return "Decimal"
        case .double: return "Double"
        case .float: return "Float"
        case .string: return "String"
        case .boolean: return "Boolean"
        case .date: return "Date"
        case .binaryData: return "Binary"
        case .uuid: return "UUID"
        case .uri: return "URI"
        case .transformable: return "Transformable"
        }
    }

    /// The type for an `attributeType` spelling, or `nil` if unknown. Transformable gets the
    /// transformer name from its own XML attribute (`valueTransformerName`).
    public init?(xmlName: String, transformerName: String? = nil) {
        switch xmlName {
        case "Integer 16": self = .integer16
        case "Integer 32": self = .integer32
        case "Integer 64": self = .integer64
        case "Decimal": self = .decimal
        case "Double": self = .double
        case "Float": self = .float
        case "String": self = .string
        case "Boolean": self = .boolean
        case "Date": self = .date
        case "Binary": self = .binaryData
        case "UUID": self = .uuid
        case "URI": self = .uri
        case "Transformable": self = .transformable(transformerName: transformerName)
        default: return nil
        }
    }

    public var description: String { xmlName }

    /// True for the types that `min`/`max` bounds apply to as numbers.
    public var isNumeric: Bool {
        switch self {
        case .integer16, .integer32, .integer64, .decimal, .double, .float: return true
        default: return false
        }
    }

    /// The range of an integer type, `nil` for the others.
    public var integerRange: ClosedRange<Int64>? {
        switch self {
        case .integer16: return Int64(Int16.min)...Int64(Int16.max)
        case .integer32: return Int64(Int32.min)...Int64(Int32.max)
        case .integer64: return Int64.min...Int64.max
        default: return nil
        }
    }

    /// Whether a runtime value has the case this type stores (`.null` is not judged here).
    public func accepts(_ value: CdValue) -> Bool {
        switch (self, value) {
        case (.integer16, .integer), (.integer32, .integer), (.integer64, .integer): return true
        case (.decimal, .decimal): return true
        case (.double, .double), (.float, .double): return true
        case (.string, .string): return true
        case (.boolean, .bool): return true
        case (.date, .date): return true
        case (.binaryData, .data), (.transformable, .data): return true
        case (.uuid, .uuid): return true
        case (.uri, .uri): return true
        default: return false
        }
    }

    /// Parses a Core Data `defaultValueString` (or `minValueString`/`maxValueString`) for this
    /// type: integers and floating point in C locale, booleans as YES/NO (also true/false, 1/0),
    /// dates as seconds since 2001-01-01 00:00:00 UTC. Returns `nil` if the text does not parse
    /// or the type has no textual form (binary, transformable).
    public func parseValue(_ text: String) -> CdValue? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch self {
        case .integer16, .integer32, .integer64:
            if let v = Int64(trimmed) { return .integer(v) }
            // Xcode writes "0.0" for some integer defaults; accept a whole number written so.
            if let d = Double(trimmed), d.rounded() == d, abs(d) < 9.2e18 { return .integer(Int64(d)) }
            return nil
        case .decimal:
            guard Double(trimmed) != nil, let d = Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX"))
            else { return nil }
            return .decimal(d)
        case .double, .float:
            return Double(trimmed).map(CdValue.double)
        case .string:
            return .string(text)
        case .boolean:
            switch trimmed.lowercased() {
            case "yes", "true", "1": return .bool(true)
            case "no", "false", "0": return .bool(false)
            default: return nil
            }
        case .date:
            guard let seconds = Double(trimmed), seconds.isFinite else { return nil }
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case .uuid:
            return UUID(uuidString: trimmed).map(CdValue.uuid)
        case .uri:
            return URL(string: trimmed).map(CdValue.uri)
        case .binaryData, .transformable:
            return nil
        }
    }
}
