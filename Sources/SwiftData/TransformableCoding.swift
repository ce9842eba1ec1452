// How an `@Attribute(.transformable(by:))` property is stored: as the bytes its value transformer
// makes of the value, in a binary attribute, whatever the property's Swift type (a class that is
// not Codable included).
//
// Invariants:
//  TC1. The stored value is `.data` of what `transformedValue(_:)` gives (`Data` or `NSData`), or
//       null for nil; a transformer that gives anything else is refused at save
//       (`unsupportedValue`, naming the property and what it gave), so nothing unreadable is
//       written.
//  TC2. A read gives `reverseTransformedValue(_:)` of the stored bytes when it is of the
//       property's exact Swift type (MS1 of ModelStorage.swift; wrapped for an optional
//       property), else nothing: the property then reads as a value that is missing does.
//  TC3. The transformer is made or looked up once, with the class's property table (MT1): a
//       class transformer by `init()`, a named one from the names registered when the table is
//       built; a name with no transformer, or a transformer that cannot transform back, is an
//       `unknownSchema` error when the container opens. A model made while the table could not
//       be built (its name not yet registered) is refused at insert (`hasTable` of
//       AnyModelStorage), since its values are not in slots.
//  TC4. A transformable attribute is neither compared nor sorted in the store (the transformer's
//       bytes compare with nothing a predicate states): a `#Predicate` on one is an error naming
//       it, and a `SortDescriptor` on one is run in Swift (FE4 of ModelContext+Fetch.swift).

import Foundation

/// The transformer `.transformable(by:)` names: its class, or the name it is registered under.
enum TransformerReference: Hashable, @unchecked Sendable {
    case type(ValueTransformer.Type)
    case name(String)

    static func == (lhs: TransformerReference, rhs: TransformerReference) -> Bool {
        switch (lhs, rhs) {
        case let (.type(l), .type(r)): return l == r
        case let (.name(l), .name(r)): return l == r
        default: return false
        }
    }

    func hash(into hasher: inout Hasher) {
        switch self {
        case let .type(type): hasher.combine(ObjectIdentifier(type))
        case let .name(name): hasher.combine(name)
        }
    }

    /// The transformer this names (TC3).
    func transformer(for property: String) throws -> ValueTransformer {
        let found: ValueTransformer?
        switch self {
        case let .type(type): found = ValueTransformer.make(type)
        case let .name(name): found = ValueTransformer.registered(NSValueTransformerName(rawValue: name))
        }
        guard let found else {
            throw SwiftDataError(
                .unknownSchema,
                "\(property) is transformable by \(self), and no such transformer is registered; register it "
                    + "with ValueTransformer.setValueTransformer(_:forName:) before the container opens")
        }
        guard Swift.type(of: found).allowsReverseTransformation() else {
            throw SwiftDataError(
                .unknownSchema,
                "\(property) is transformable by \(Swift.type(of: found)), which does not transform back "
                    + "(allowsReverseTransformation() is false), so its stored value could not be read")
        }
        return found
    }
}

extension TransformerReference: CustomStringConvertible {
    var description: String {
        switch self {
        case let .type(type): return "\(type)"
        case let .name(name): return "the transformer named \"\(name)\""
        }
    }
}

extension AttributeCoding {
    /// The conversions of a property of Swift type `valueType` stored through `transformer`
    /// (TC1, TC2); `property` names it in errors (`Entity.name`).
    static func transformableConverters(
        _ transformer: ValueTransformer, valueType: Any.Type, property: String
    ) -> Converters {
        let optional = valueType as? any OptionalValue.Type
        return Converters(
            store: { value in
                var present: Any? = value
                if let wrapped = value as? any OptionalValue { present = wrapped.wrappedValue }
                guard let present else { return .null }
                switch transformer.transformedValue(present) {
                case let data as Data: return .data(data)
                case let data as NSData: return .data(Data(referencing: data))
                case let other:
                    throw SwiftDataError(
                        .unsupportedValue,
                        "\(property): \(type(of: transformer)).transformedValue(_:) gave "
                            + "\(other.map { "a \(type(of: $0))" } ?? "nil") for a \(type(of: present)), not Data")
                }
            },
            swift: { stored in
                guard case let .data(data) = stored else { return stored.isNull ? optional?.none : nil }
                guard let value = transformer.reverseTransformedValue(data) else { return optional?.none }
                if let optional { return optional.wrapping(value) }  // TC2
                return ofType(value, valueType)
            })
    }

    /// `value` when it is of type `type`, else nil.
    private static func ofType(_ value: Any, _ type: Any.Type) -> Any? {
        func cast<T>(_: T.Type) -> Any? { (value as? T).map { $0 as Any } }
        return cast(type)
    }
}
