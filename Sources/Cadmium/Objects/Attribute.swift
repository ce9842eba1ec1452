// `@Attribute`: a stored (or transient) attribute of a `CdManagedObject` subclass. The wrapper
// holds no value, only its ordinal (8 bytes in every object); it routes every read and write
// through the object's context (where the misuse checks I and J live) with the
// `_enclosingInstance` subscript. The attribute's type and options reach the model builder as an
// `AttributeSpec`, recorded only while `WrapperSpecs.capture` builds one prototype per class, so
// objects do not carry them.

import Foundation
import CdObjects

/// An option of an ``Attribute``: index, uniqueness, transience, validation.
///
/// ```swift
/// @Attribute(.indexed, .unique) var email: String?
/// @Attribute(.range(0...150)) var age: Int16 = 0
/// @Attribute(.length(1...64), .pattern("[A-Z].*")) var name: String
/// ```
public struct AttributeOption: Sendable, Hashable {
    enum Kind: Hashable {
        case indexed, unique, transient, preservesValueInHistoryOnDeletion
        case range(CdValue?, CdValue?)
        case length(Int?, Int?)
        case pattern(String)
    }
    let kind: Kind

    /// A single-property index (Core Data's "Indexed").
    public static let indexed = AttributeOption(kind: .indexed)
    /// A uniqueness constraint on this attribute alone.
    public static let unique = AttributeOption(kind: .unique)
    /// Kept in memory only, never stored.
    public static let transient = AttributeOption(kind: .transient)
    /// A deleted object's value is kept in its persistent history tombstone
    /// (`CdHistoryChange.tombstone`; Core Data's `preservesValueInHistoryOnDeletion`).
    public static let preservesValueInHistoryOnDeletion = AttributeOption(kind: .preservesValueInHistoryOnDeletion)
    /// Integer bounds (1610 above, 1620 below at save).
    public static func range<N: BinaryInteger>(_ range: ClosedRange<N>) -> AttributeOption {
        AttributeOption(kind: .range(.integer(Int64(range.lowerBound)), .integer(Int64(range.upperBound))))
    }
    /// Floating-point bounds.
    public static func range<F: BinaryFloatingPoint>(_ range: ClosedRange<F>) -> AttributeOption {
        AttributeOption(kind: .range(.double(Double(range.lowerBound)), .double(Double(range.upperBound))))
    }
    /// A lower bound only.
    public static func minimum(_ value: Int64) -> AttributeOption {
        AttributeOption(kind: .range(.integer(value), nil))
    }
    /// An upper bound only.
    public static func maximum(_ value: Int64) -> AttributeOption {
        AttributeOption(kind: .range(nil, .integer(value)))
    }
    /// Date bounds (1630 after, 1640 before).
    public static func range(_ range: ClosedRange<Date>) -> AttributeOption {
        AttributeOption(kind: .range(.date(range.lowerBound), .date(range.upperBound)))
    }
    /// String length bounds in UTF-16 code units (1660 / 1670).
    public static func length(_ range: ClosedRange<Int>) -> AttributeOption {
        AttributeOption(kind: .length(range.lowerBound, range.upperBound))
    }
    /// A regular expression the whole string must match (1680).
    public static func pattern(_ regex: String) -> AttributeOption { AttributeOption(kind: .pattern(regex)) }
}

/// What the model builder and the accessors need from either wrapper, read through `Mirror`.
protocol CdPropertyWrapper {
    /// The wrapper's position among its object's wrappers, in initialisation order: the same in
    /// every instance of a class, so it finds the property's slot (`ObjectSlots.wrapperSlots`).
    var ordinal: Int { get }
}

/// Numbers the wrappers of the object being initialised on this thread: each wrapper takes the
/// next ordinal, and `CdManagedObject.init` (which runs after its subclasses' stored properties
/// are initialised) takes the count and starts the next object at 0.
enum WrapperOrdinals {
    /// The next ordinal; `spec` (built only while `WrapperSpecs.capture` runs) is recorded for it.
    @inline(__always)
    static func take(_ spec: @autoclosure () -> any WrapperSpec) -> Int {
        let state = ThreadState.current
        let ordinal = state.nextWrapperOrdinal
        state.nextWrapperOrdinal += 1
        if state.capturedSpecs != nil { WrapperSpecs.record(spec(), ordinal: ordinal, in: state) }
        return ordinal
    }

    /// The number of ordinals taken since the last call (the object's wrappers).
    @inline(__always)
    static func finishObject() -> Int {
        let state = ThreadState.current
        defer { state.nextWrapperOrdinal = 0 }
        return state.nextWrapperOrdinal
    }
}

/// An attribute of a managed object. Optional Swift types are optional attributes; an inline
/// value is the model's default.
///
/// ```swift
/// final class Employee: CdManagedObject {
///     @Attribute var name: String
///     @Attribute var salary: Int64 = 0
///     @Attribute(.indexed) var email: String?
/// }
/// ```
@propertyWrapper
public struct Attribute<Value: CdAttributeValue>: CdPropertyWrapper {
    @usableFromInline let ordinal: Int

    // Each initialiser builds its spec only inside the autoclosure (run while a prototype is
    // captured): an object's initialisation then needs no `Value?` and no metadata of its own.
    /// An attribute with no default (a required one must be set before the commit).
    public init() { ordinal = WrapperOrdinals.take(AttributeSpec<Value>.spec([])) }
    /// An attribute with options and no default.
    public init(_ options: AttributeOption...) {
        ordinal = WrapperOrdinals.take(AttributeSpec<Value>.spec(options))
    }
    /// An attribute whose inline value is the model's default.
    public init(wrappedValue: Value, _ options: AttributeOption...) {
        ordinal = WrapperOrdinals.take(AttributeSpec<Value>.spec(options, default: wrappedValue))
    }
    // The forms with one option or none, which most declarations use, without the variadic
    // list: that is an array the caller builds for every object, though only a captured
    // prototype reads it.
    /// An attribute with one option and no default.
    public init(_ option: AttributeOption) {
        ordinal = WrapperOrdinals.take(AttributeSpec<Value>.spec([option]))
    }
    /// An attribute whose inline value is the model's default.
    public init(wrappedValue: Value) {
        ordinal = WrapperOrdinals.take(AttributeSpec<Value>.spec([], default: wrappedValue))
    }
    /// An attribute with one option whose inline value is the model's default.
    public init(wrappedValue: Value, _ option: AttributeOption) {
        ordinal = WrapperOrdinals.take(AttributeSpec<Value>.spec([option], default: wrappedValue))
    }

    /// Not used: every access goes through the enclosing object (see the static subscript).
    @available(*, unavailable, message: "@Attribute is only available on CdManagedObject subclasses")
    public var wrappedValue: Value {
        get { fatalError("unavailable") }
        set { fatalError("unavailable") }
    }

    /// Reads and writes go through the object's context, which checks confinement.
    /// Inlinable so that each class's accessors specialise it: the storage key path then reads
    /// the wrapper's ordinal as a field, where the generic projection cost ~200 ns per access.
    @inlinable
    public static subscript<Object: CdManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Attribute<Value>>
    ) -> Value {
        get {
            let slot = object.slot(storageKeyPath, ordinal: object[keyPath: storageKeyPath].ordinal)
            let value = object.readAttribute(slot)
            return Value.fromCdValue(value) ?? Value.cdEmptyValue
        }
        set {
            let slot = object.slot(storageKeyPath, ordinal: object[keyPath: storageKeyPath].ordinal)
            object.writeAttribute(slot, newValue.cdValue)
        }
    }

}

/// What the model builder needs from an `@Attribute`: its type, default and options.
struct AttributeSpec<Value: CdAttributeValue>: WrapperSpec {
    let options: [AttributeOption]
    let initialValue: Value?

    // The initialisers call these rather than `init`: a `Value?` or an `AttributeSpec<Value>` in
    // the wrapper's own initialiser makes it look up that type's metadata for every object,
    // though only a captured prototype builds a spec.
    /// The spec of an attribute with no default.
    @inline(never)
    static func spec(_ options: [AttributeOption]) -> any WrapperSpec {
        AttributeSpec(options: options, initialValue: nil)
    }

    /// The spec of an attribute whose default is `value`.
    @inline(never)
    static func spec(_ options: [AttributeOption], default value: Value) -> any WrapperSpec {
        AttributeSpec(options: options, initialValue: value)
    }

    var wrapperType: Any.Type { Attribute<Value>.self }

    func ordinal(in object: UnsafeRawPointer, at offset: Int) -> Int {
        object.load(fromByteOffset: offset, as: Attribute<Value>.self).ordinal
    }

    func property(name: String) -> WrapperProperty {
        let (attribute, unique) = description(name: name)
        return .attribute(attribute, unique: unique)
    }

    /// The model's description of this attribute.
    func description(name: String) -> (AttributeDescription, unique: Bool) {
        var validation = AttributeValidation()
        var indexed = false, unique = false, transient = false, preserves = false
        for option in options {
            switch option.kind {
            case .indexed: indexed = true
            case .unique: unique = true
            case .transient: transient = true
            case .preservesValueInHistoryOnDeletion: preserves = true
            case let .range(low, high):
                var low = low, high = high
                // Bounds are given as Int64 or Double; fit them to the attribute's number type.
                if Value.cdAttributeType == .double || Value.cdAttributeType == .float {
                    if case let .integer(v)? = low { low = .double(Double(v)) }
                    if case let .integer(v)? = high { high = .double(Double(v)) }
                }
                validation.minValue = low ?? validation.minValue
                validation.maxValue = high ?? validation.maxValue
            case let .length(low, high):
                validation.minLength = low
                validation.maxLength = high
            case let .pattern(p): validation.pattern = p
            }
        }
        let initial = initialValue?.cdValue
        let attribute = AttributeDescription(
            name: name, type: Value.cdAttributeType, isOptional: Value.cdIsOptional,
            defaultValue: (initial?.isNull ?? true) ? nil : initial,
            isTransient: transient, isIndexed: indexed, validation: validation,
            preservesValueInHistoryOnDeletion: preserves)
        return (attribute, unique)
    }
}

/// The model-building side of a wrapper, recorded for its ordinal by `WrapperSpecs.capture`.
/// Its requirements are what model building asks of a wrapper without casting it: a cast to a
/// protocol costs the Swift runtime a scan of every conformance in the process the first time
/// it meets a type (WrapperFields.swift).
protocol WrapperSpec {
    /// The wrapper type this spec was recorded by (`Attribute<Value>`, `Relationship<Value>`).
    var wrapperType: Any.Type { get }
    /// The ordinal in the wrapper stored `offset` bytes into `object`, which holds a
    /// `wrapperType` there.
    func ordinal(in object: UnsafeRawPointer, at offset: Int) -> Int
    /// The model's description of the property named `name`.
    func property(name: String) -> WrapperProperty
}

/// What a wrapper declares: an attribute (and whether it is unique on its own) or a relationship.
enum WrapperProperty {
    case attribute(AttributeDescription, unique: Bool)
    case relationship(RelationshipDescription)
}

/// Records the wrapper specs of the objects made by `body` on this thread, by ordinal.
enum WrapperSpecs {
    /// The specs recorded while `body` ran, indexed by ordinal (nil where none was recorded).
    /// `ordinalTakenTwice` tells that some ordinal was recorded twice: a managed object was made
    /// while the captured one's stored properties were initialised (its `init` restarts the
    /// ordinals), so the ordinals do not tell the captured object's wrappers apart.
    static func capture<R>(_ body: () -> R) -> (R, [(any WrapperSpec)?], ordinalTakenTwice: Bool) {
        let state = ThreadState.current
        let saved = (state.capturedSpecs, state.capturedOrdinalTwice)
        state.capturedSpecs = []
        state.capturedOrdinalTwice = false
        defer { (state.capturedSpecs, state.capturedOrdinalTwice) = saved }
        let result = body()
        return (result, state.capturedSpecs ?? [], state.capturedOrdinalTwice)
    }

    /// Records `spec` for `ordinal` in the capture running on `state`'s thread.
    static func record(_ spec: any WrapperSpec, ordinal: Int, in state: ThreadState) {
        guard var specs = state.capturedSpecs, ordinal >= 0 else { return }
        state.capturedSpecs = nil  // one owner of the buffer while it grows
        if specs.count <= ordinal { specs += Array(repeating: nil, count: ordinal + 1 - specs.count) }
        if specs[ordinal] != nil { state.capturedOrdinalTwice = true }
        specs[ordinal] = spec
        state.capturedSpecs = specs
    }
}
