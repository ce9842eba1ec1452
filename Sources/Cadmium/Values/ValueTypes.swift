// How a Swift property type of a value maps onto the model: an attribute of some type (every
// `CdAttributeValue`, the other fixed-width integers and floating-point types, RawRepresentable
// enums as their raw value), a to-one relationship (a nested `CdManagedStruct`), a to-many
// relationship (an array of them), or else a transformable attribute (any other Codable type).
// Also the conversions between such Swift values and the store's `CdValue`.

import Foundation
import CdObjects

/// What a property of a value is in the model.
enum ValueTypeKind {
    case attribute(AttributeType)
    case toOne(any CdManagedStruct.Type)
    case toMany(any CdManagedStruct.Type)
    case transformable
}

/// An array of values that map onto an entity: a to-many relationship.
protocol CdManagedStructArray {
    /// The element type.
    static var elementType: any CdManagedStruct.Type { get }
    /// The elements, as existentials.
    var managedElements: [any CdManagedStruct] { get }
    /// The array of `elements`, nil when one is not of the element type.
    static func make(_ elements: [any CdManagedStruct]) -> Self?
}

extension Array: CdManagedStructArray where Element: CdManagedStruct {
    static var elementType: any CdManagedStruct.Type { Element.self }
    var managedElements: [any CdManagedStruct] { map { $0 } }
    static func make(_ elements: [any CdManagedStruct]) -> [Element]? {
        let typed = elements.compactMap { $0 as? Element }
        return typed.count == elements.count ? typed : nil
    }
}

enum ValueTypes {
    /// The kind of a property of type `type` (an optional's wrapped type, as `decodeIfPresent`
    /// gives it).
    static func kind(of type: Any.Type) -> ValueTypeKind {
        if let element = type as? any CdManagedStruct.Type { return .toOne(element) }
        if let array = type as? any CdManagedStructArray.Type { return .toMany(array.elementType) }
        if let attribute = attributeType(of: type) { return .attribute(attribute) }
        return .transformable
    }

    /// The attribute type of a scalar Swift type, nil for other types.
    static func attributeType(of type: Any.Type) -> AttributeType? {
        if let value = type as? any CdAttributeValue.Type { return value.cdAttributeType }
        if type == Int8.self || type == UInt8.self { return .integer16 }
        if type == UInt16.self { return .integer32 }
        if type == UInt32.self || type == UInt64.self || type == UInt.self { return .integer64 }
        if let raw = type as? any RawRepresentable.Type { return rawAttributeType(raw) }
        return nil
    }

    private static func rawAttributeType<R: RawRepresentable>(_ type: R.Type) -> AttributeType? {
        attributeType(of: R.RawValue.self)
    }

    /// The store value of a scalar Swift value (a RawRepresentable one as its raw value); nil
    /// when the value is not a scalar.
    static func storeValue(of value: Any) -> CdValue? {
        if let attribute = value as? any CdAttributeValue { return attribute.cdValue }
        if let integer = value as? any FixedWidthInteger { return Int64(exactly: integer).map(CdValue.integer) }
        if let float = value as? any BinaryFloatingPoint { return .double(Double(float)) }
        if let raw = value as? any RawRepresentable { return storeValue(of: raw.rawValue) }
        return nil
    }

    /// `value` as attribute type `type`: as it is when the type stores its case, else converted
    /// between numeric cases when nothing is lost; nil when it does not fit (an integer outside
    /// the type's range too).
    static func coerce(_ value: CdValue, to type: AttributeType) -> CdValue? {
        if value.isNull { return value }
        if let range = type.integerRange {
            switch value {
            case let .integer(i): return range.contains(i) ? value : nil
            case let .double(d): return Int64(exactly: d).flatMap { range.contains($0) ? .integer($0) : nil }
            default: return nil
            }
        }
        if type.accepts(value) { return value }
        switch (type, value) {
        case let (.double, .integer(i)), let (.float, .integer(i)): return .double(Double(i))
        case let (.decimal, .integer(i)): return .decimal(Decimal(i))
        case let (.decimal, .double(d)): return .decimal(Decimal(d))
        default: return nil
        }
    }

    /// The Swift value of type `type` for a store value; nil when it does not fit.
    static func swiftValue<T>(_ type: T.Type, from value: CdValue) -> T? {
        if let attribute = type as? any CdAttributeValue.Type { return attribute.fromCdValue(value) as? T }
        if let integer = type as? any FixedWidthInteger.Type { return makeInteger(integer, value) as? T }
        if let float = type as? any BinaryFloatingPoint.Type { return makeFloat(float, value) as? T }
        if let raw = type as? any RawRepresentable.Type { return makeRaw(raw, value) as? T }
        return nil
    }

    private static func makeInteger<I: FixedWidthInteger>(_ type: I.Type, _ value: CdValue) -> I? {
        guard case let .integer(i) = value else { return nil }
        return I(exactly: i)
    }

    private static func makeFloat<F: BinaryFloatingPoint>(_ type: F.Type, _ value: CdValue) -> F? {
        switch value {
        case let .double(d): return F(d)
        case let .integer(i): return F(i)
        default: return nil
        }
    }

    private static func makeRaw<R: RawRepresentable>(_ type: R.Type, _ value: CdValue) -> R? {
        swiftValue(R.RawValue.self, from: value).flatMap(R.init(rawValue:))
    }
}
