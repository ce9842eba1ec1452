// How a persisted property's Swift type maps onto the store: the attribute type it is stored as
// and the conversions between its values and the store's `CdValue`. Scalars (`Int`, `String`,
// `Date`, `UUID`, …) are stored as themselves, RawRepresentable enums as their raw value, any
// other Codable type as its JSON encoding (binary data), and `Optional` of each as an optional
// attribute.
//
// Invariants:
//  AC1. `swiftValue(storeValue(v), as: T.self)` gives back `v` for every type `attributeType`
//       accepts (JSON round trip for Codable types).
//  AC2. A stored value that does not fit the property's type is a `SwiftDataError` naming the
//       property type and the value, never a trap.

internal import Cadmium
internal import CdObjects
import Foundation

/// `Optional`, recognised at run time.
protocol OptionalValue {
    /// The wrapped type.
    static var wrappedType: Any.Type { get }
    /// `nil` of this type.
    static var none: Any { get }
    /// `value` wrapped in this optional type (`value` must be of the wrapped type).
    static func wrapping(_ value: Any) -> Any?
    /// The wrapped value, nil for `nil`.
    var wrappedValue: Any? { get }
}

extension Optional: OptionalValue {
    static var wrappedType: Any.Type { Wrapped.self }
    static var none: Any {
        let nothing: Wrapped? = nil
        return nothing as Any
    }
    static func wrapping(_ value: Any) -> Any? { (value as? Wrapped).map { Optional($0) as Any } }
    var wrappedValue: Any? { self.map { $0 as Any } }
}

/// Conversions between Swift property values and stored values (keeps AC1, AC2).
enum AttributeCoding {
    /// The attribute type of a property of type `type`, and whether it is optional; nil when
    /// the type is neither a scalar, a RawRepresentable of one, nor Codable.
    static func attributeType(of type: Any.Type) -> (type: AttributeType, isOptional: Bool)? {
        if let optional = type as? any OptionalValue.Type {
            return attributeType(of: optional.wrappedType).map { ($0.type, true) }
        }
        if let scalar = type as? any CdAttributeValue.Type { return (scalar.cdAttributeType, false) }
        if let raw = type as? any RawRepresentable.Type, let stored = rawType(raw) { return (stored, false) }
        if type is any Codable.Type { return (.binaryData, false) }
        return nil
    }

    private static func rawType<R: RawRepresentable>(_: R.Type) -> AttributeType? {
        guard let (type, optional) = attributeType(of: R.RawValue.self), !optional else { return nil }
        return type == .binaryData ? nil : type
    }

    /// `value` as the store holds it.
    static func storeValue(_ value: Any) throws -> CdValue {
        if let optional = value as? any OptionalValue {
            guard let wrapped = optional.wrappedValue else { return .null }
            return try storeValue(wrapped)
        }
        if let scalar = value as? any CdAttributeValue { return scalar.cdValue }
        if let raw = value as? any RawRepresentable { return try storeValue(raw.rawValue) }
        if let codable = value as? any Encodable {
            do { return .data(try JSONEncoder().encode(codable)) } catch {
                throw SwiftDataError(.unsupportedValue, "a \(type(of: value)) value could not be encoded: \(error)")
            }
        }
        throw SwiftDataError(.unsupportedValue, "a \(type(of: value)) value has no stored form")
    }

    /// The Swift value of type `type` that `stored` holds.
    static func swiftValue(_ stored: CdValue, as type: Any.Type) throws -> Any {
        if let optional = type as? any OptionalValue.Type {
            if stored.isNull { return optional.none }
            let wrapped = try swiftValue(stored, as: optional.wrappedType)
            guard let value = optional.wrapping(wrapped) else { throw mismatch(stored, type) }
            return value
        }
        if let scalar = type as? any CdAttributeValue.Type {
            guard let value = scalar.fromCdValue(stored) else { throw mismatch(stored, type) }
            return value
        }
        if let raw = type as? any RawRepresentable.Type { return try rawValue(stored, raw) }
        if let codable = type as? any Decodable.Type {
            guard case let .data(data) = stored else { throw mismatch(stored, type) }
            do { return try JSONDecoder().decode(codable, from: data) } catch {
                throw SwiftDataError(.unsupportedValue, "stored data does not decode as \(type): \(error)")
            }
        }
        throw mismatch(stored, type)
    }

    private static func rawValue<R: RawRepresentable>(_ stored: CdValue, _ type: R.Type) throws -> R {
        guard let raw = try swiftValue(stored, as: R.RawValue.self) as? R.RawValue, let value = R(rawValue: raw) else {
            throw mismatch(stored, type)
        }
        return value
    }

    private static func mismatch(_ stored: CdValue, _ type: Any.Type) -> SwiftDataError {
        SwiftDataError(.unsupportedValue, "the stored value \(stored) is not a \(type)")
    }

    /// An attribute type's conversions with its conformances resolved once (MT3): a scalar and
    /// an optional scalar convert directly, other types through `storeValue` / `swiftValue`.
    struct Converters: @unchecked Sendable {
        /// The stored form of a value of the type.
        let store: (Any) throws -> CdValue
        /// The value of the type a stored value stands for; nil when it does not fit.
        let swift: (CdValue) -> Any?

        /// For relationships, which have no attribute conversions.
        static let none = Converters(store: { try storeValue($0) }, swift: { _ in nil })
    }

    /// The conversions of values of `type`.
    static func converters(for type: Any.Type) -> Converters {
        // The common scalars by name, so that their conversions are compiled for the concrete type
        // and look up no generic metadata per value; the same conversions as the generic path's.
        if type == Int64.self { return scalarConverters(Int64.self) }
        if type == Int.self { return scalarConverters(Int.self) }
        if type == String.self { return scalarConverters(String.self) }
        if type == Double.self { return scalarConverters(Double.self) }
        if type == Date.self { return scalarConverters(Date.self) }
        if type == Bool.self { return scalarConverters(Bool.self) }
        if let optional = type as? any OptionalValue.Type {
            if let scalar = optional.wrappedType as? any CdAttributeValue.Type {
                return optionalScalarConverters(scalar)
            }
        } else if let scalar = type as? any CdAttributeValue.Type {
            return scalarConverters(scalar)
        }
        return Converters(store: { try storeValue($0) }, swift: { try? swiftValue($0, as: type) })
    }

    private static func scalarConverters<S: CdAttributeValue>(_: S.Type) -> Converters {
        Converters(
            store: { value in
                guard let scalar = value as? S else { return try storeValue(value) }
                return scalar.cdValue
            },
            swift: { stored in S.fromCdValue(stored).map { $0 as Any } })
    }

    private static func optionalScalarConverters<S: CdAttributeValue>(_: S.Type) -> Converters {
        Converters(
            store: { value in
                guard let optional = value as? S? else { return try storeValue(value) }
                return optional?.cdValue ?? .null
            },
            swift: { stored in
                if stored.isNull { return S?.none as Any }
                return S.fromCdValue(stored).map { S?.some($0) as Any }
            })
    }
}
