// The Swift types an `@Attribute` can hold, and how each maps to the model's `AttributeType` and
// to the store's `CdValue`. `Optional` of any of them is an optional attribute.

import Foundation
import CdObjects

/// A Swift type that an ``Attribute`` can hold.
///
/// Conforming types: `Int`, `Int16`, `Int32`, `Int64`, `Double`, `Float`, `Decimal`, `String`,
/// `Bool`, `Date`, `Data`, `UUID`, `URL`, and `Optional` of each (an optional attribute).
public protocol CdAttributeValue {
    /// The model type of the attribute.
    static var cdAttributeType: AttributeType { get }
    /// Whether nil is allowed (true only for `Optional`).
    static var cdIsOptional: Bool { get }
    /// The value returned when a required attribute has no value yet (a new object whose
    /// attribute was never set): zero, the empty string, and so on.
    static var cdEmptyValue: Self { get }
    /// This value as the store holds it.
    var cdValue: CdValue { get }
    /// The Swift value of a stored value, or nil when the stored value does not fit.
    static func fromCdValue(_ value: CdValue) -> Self?
}

extension CdAttributeValue {
    /// Non-optional by default.
    public static var cdIsOptional: Bool { false }
}

/// `Int64` attributes are stored as Integer 64.
extension Int64: CdAttributeValue {
    public static var cdAttributeType: AttributeType { .integer64 }
    public static var cdEmptyValue: Int64 { 0 }
    public var cdValue: CdValue { .integer(self) }
    public static func fromCdValue(_ value: CdValue) -> Int64? {
        switch value {
        case let .integer(v): return v
        case let .double(v): return Int64(exactly: v.rounded(.towardZero))
        default: return nil
        }
    }
}

/// `Int` attributes are stored as Integer 64.
extension Int: CdAttributeValue {
    public static var cdAttributeType: AttributeType { .integer64 }
    public static var cdEmptyValue: Int { 0 }
    public var cdValue: CdValue { .integer(Int64(self)) }
    public static func fromCdValue(_ value: CdValue) -> Int? { Int64.fromCdValue(value).map { Int($0) } }
}

/// `Int32` attributes are stored as Integer 32.
extension Int32: CdAttributeValue {
    public static var cdAttributeType: AttributeType { .integer32 }
    public static var cdEmptyValue: Int32 { 0 }
    public var cdValue: CdValue { .integer(Int64(self)) }
    public static func fromCdValue(_ value: CdValue) -> Int32? {
        Int64.fromCdValue(value).flatMap { Int32(exactly: $0) }
    }
}

/// `Int16` attributes are stored as Integer 16.
extension Int16: CdAttributeValue {
    public static var cdAttributeType: AttributeType { .integer16 }
    public static var cdEmptyValue: Int16 { 0 }
    public var cdValue: CdValue { .integer(Int64(self)) }
    public static func fromCdValue(_ value: CdValue) -> Int16? {
        Int64.fromCdValue(value).flatMap { Int16(exactly: $0) }
    }
}

/// `Double` attributes are stored as Double.
extension Double: CdAttributeValue {
    public static var cdAttributeType: AttributeType { .double }
    public static var cdEmptyValue: Double { 0 }
    public var cdValue: CdValue { .double(self) }
    public static func fromCdValue(_ value: CdValue) -> Double? {
        switch value {
        case let .double(v): return v
        case let .integer(v): return Double(v)
        case let .decimal(v): return NSDecimalNumber(decimal: v).doubleValue
        default: return nil
        }
    }
}

/// `Float` attributes are stored as Float.
extension Float: CdAttributeValue {
    public static var cdAttributeType: AttributeType { .float }
    public static var cdEmptyValue: Float { 0 }
    public var cdValue: CdValue { .double(Double(self)) }
    public static func fromCdValue(_ value: CdValue) -> Float? { Double.fromCdValue(value).map { Float($0) } }
}

/// `Decimal` attributes are stored as Decimal.
extension Decimal: CdAttributeValue {
    public static var cdAttributeType: AttributeType { .decimal }
    public static var cdEmptyValue: Decimal { 0 }
    public var cdValue: CdValue { .decimal(self) }
    public static func fromCdValue(_ value: CdValue) -> Decimal? {
        switch value {
        case let .decimal(v): return v
        case let .integer(v): return Decimal(v)
        case let .double(v): return Decimal(v)
        default: return nil
        }
    }
}

/// `String` attributes are stored as String.
extension String: CdAttributeValue {
    public static var cdAttributeType: AttributeType { .string }
    public static var cdEmptyValue: String { "" }
    public var cdValue: CdValue { .string(self) }
    public static func fromCdValue(_ value: CdValue) -> String? { if case let .string(v) = value { v } else { nil } }
}

/// `Bool` attributes are stored as Boolean.
extension Bool: CdAttributeValue {
    public static var cdAttributeType: AttributeType { .boolean }
    public static var cdEmptyValue: Bool { false }
    public var cdValue: CdValue { .bool(self) }
    public static func fromCdValue(_ value: CdValue) -> Bool? {
        switch value {
        case let .bool(v): return v
        case let .integer(v): return v != 0
        default: return nil
        }
    }
}

/// `Date` attributes are stored as Date.
extension Date: CdAttributeValue {
    public static var cdAttributeType: AttributeType { .date }
    public static var cdEmptyValue: Date { Date(timeIntervalSinceReferenceDate: 0) }
    public var cdValue: CdValue { .date(self) }
    public static func fromCdValue(_ value: CdValue) -> Date? { if case let .date(v) = value { v } else { nil } }
}

/// `Data` attributes are stored as Binary Data.
extension Data: CdAttributeValue {
    public static var cdAttributeType: AttributeType { .binaryData }
    public static var cdEmptyValue: Data { Data() }
    public var cdValue: CdValue { .data(self) }
    public static func fromCdValue(_ value: CdValue) -> Data? { if case let .data(v) = value { v } else { nil } }
}

/// `UUID` attributes are stored as UUID.
extension UUID: CdAttributeValue {
    public static var cdAttributeType: AttributeType { .uuid }
    public static var cdEmptyValue: UUID { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
    public var cdValue: CdValue { .uuid(self) }
    public static func fromCdValue(_ value: CdValue) -> UUID? { if case let .uuid(v) = value { v } else { nil } }
}

/// `URL` attributes are stored as URI.
extension URL: CdAttributeValue {
    public static var cdAttributeType: AttributeType { .uri }
    public static var cdEmptyValue: URL { URL(string: "about:blank")! }
    public var cdValue: CdValue { .uri(self) }
    public static func fromCdValue(_ value: CdValue) -> URL? { if case let .uri(v) = value { v } else { nil } }
}

/// `Optional` of an attribute type is an optional attribute of that type.
extension Optional: CdAttributeValue where Wrapped: CdAttributeValue {
    public static var cdAttributeType: AttributeType { Wrapped.cdAttributeType }
    public static var cdIsOptional: Bool { true }
    public static var cdEmptyValue: Wrapped? { nil }
    public var cdValue: CdValue { self?.cdValue ?? .null }
    public static func fromCdValue(_ value: CdValue) -> Wrapped?? {
        if value.isNull { return .some(nil) }
        return Wrapped.fromCdValue(value).map { .some($0) }
    }
}

extension CdValue {
    /// The Swift value of a stored value for dictionary rows: `Int64`, `Double`, `Decimal`,
    /// `String`, `Bool`, `Date`, `Data`, `UUID`, `URL`; nil for `.null`.
    var anyValue: Any? {
        switch self {
        case .null: return nil
        case let .integer(v): return v
        case let .double(v): return v
        case let .decimal(v): return v
        case let .string(v): return v
        case let .bool(v): return v
        case let .date(v): return v
        case let .data(v): return v
        case let .uuid(v): return v
        case let .uri(v): return v
        }
    }
}
