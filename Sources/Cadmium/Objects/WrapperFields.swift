// The `@Attribute` and `@Relationship` stored properties of a managed object class, read from the
// class's field records (the standard library's `_forEachField`: name, offset and type of each
// stored property) instead of through `Mirror`. Mirror casts the object and every child value to
// protocols (`CustomReflectable`, then the wrapper protocol), and the Swift runtime answers the
// first cast of each type by scanning every protocol conformance in the process: that was about
// a third of a cold open. Here a field is recognised by comparing its type with the wrapper types
// the prototype's specs recorded, and its ordinal is read from the prototype with the spec's own
// (typed) load, so building a model makes no protocol cast at all.
//
// Invariants:
//  MB1. A field is reported only when its type is the `wrapperType` of the spec recorded for the
//       ordinal stored in it: a stored property of some other type, or one holding an ordinal
//       that the prototype's initialisation did not record, is never taken for a wrapper.
//  MB3. Every wrapper a prototype makes is found as a field (when no ordinal was taken twice):
//       a class whose wrapper is not a stored property of its own (inside a tuple or a struct
//       field), or a runtime whose field records no longer show one, is refused with
//       `ModelError.wrapperNotAStoredProperty` rather than modelled without that property.
//  MB2. Fields come in the runtime's order (a superclass's fields before its subclass's, each
//       class's in declaration order); `inherited` marks those declared by a superclass.
//  RV1. A class whose wrappers' ordinals do not tell them apart (it makes a managed object while
//       its stored properties are initialised, after some of its wrappers: that restarts the
//       ordinals) is refused by `checked`: one property's values would reach another's slot.

@_spi(Reflection) import Swift

/// A wrapper stored property of a class: its property name, its ordinal and its spec.
struct WrapperField {
    /// The property's name (the stored field's name less the wrapper's `_` prefix).
    let name: String
    /// The wrapper's ordinal, the same in every instance of the class (OSL1 in ObjectSlots.swift).
    let ordinal: Int
    /// What the wrapper declares.
    let spec: any WrapperSpec
    /// Declared by a superclass of the class asked about.
    let inherited: Bool
}

enum WrapperFields {
    /// `_EachFieldOptions.classType` (`1 << 0` in the standard library), which Swift 6 mode does
    /// not let us read: it is declared a `static var`.
    private static let classFields = _EachFieldOptions(rawValue: 1 << 0)

    /// The wrapper fields of `cls` and its superclasses, read from one prototype of `cls`
    /// (keeps MB1 and MB2).
    static func of(_ cls: CdManagedObject.Type) -> [WrapperField] { read(cls).fields }

    /// ``of(_:)``, or an error naming `cls` when its ordinals do not tell its wrappers apart
    /// (keeps RV1) or when a wrapper it made is not one of its stored properties (keeps MB3).
    static func checked(_ cls: CdManagedObject.Type) throws(ModelError) -> [WrapperField] {
        let (fields, ambiguous, made) = read(cls)
        if ambiguous {
            throw .managedObjectMadeDuringInitialisation(className: _typeName(cls, qualified: true))
        }
        if let made, made != fields.count {
            throw .wrapperNotAStoredProperty(
                className: _typeName(cls, qualified: true), wrappers: made, properties: fields.count)
        }
        return fields
    }

    /// The wrapper fields of `cls`, whether its wrappers' ordinals fail to tell them apart, and
    /// how many wrappers its prototype made (nil when an ordinal was taken twice: then that count
    /// says nothing).
    private static func read(
        _ cls: CdManagedObject.Type
    ) -> (
        fields: [WrapperField], ambiguous: Bool, made: Int?
    ) {
        let (prototype, specs, ordinalTakenTwice) = WrapperSpecs.capture { cls.init() }
        let inheritedCount = _getSuperclass(cls).map(fieldCount) ?? 0
        var fields: [WrapperField] = []
        var index = 0
        // Counted only after an ordinal was taken twice (the cast is what this file avoids).
        var wrapperTyped = 0
        withExtendedLifetime(prototype) {
            let base = UnsafeRawPointer(Unmanaged.passUnretained(prototype).toOpaque())
            _forEachField(of: cls, options: classFields) { name, offset, type, _ in
                defer { index += 1 }
                if ordinalTakenTwice, name.pointee == CChar(UInt8(ascii: "_")), type is any CdPropertyWrapper.Type {
                    wrapperTyped += 1
                }
                guard name.pointee == CChar(UInt8(ascii: "_")),
                    let found = specs.first(where: { $0?.wrapperType == type }), let candidate = found
                else { return true }
                // Keeps MB1: the ordinal read must name a spec recorded for this same wrapper type.
                let ordinal = candidate.ordinal(in: base, at: offset)
                guard specs.indices.contains(ordinal), let spec = specs[ordinal], spec.wrapperType == type else {
                    return true
                }
                let label = String(cString: name)
                fields.append(
                    WrapperField(
                        name: String(label.dropFirst()), ordinal: ordinal, spec: spec,
                        inherited: index < inheritedCount))
                return true
            }
        }
        // Keeps RV1: harmful only when a wrapper of this class was lost or two share an ordinal.
        let ambiguous =
            ordinalTakenTwice && (wrapperTyped != fields.count || Set(fields.map(\.ordinal)).count != fields.count)
        // MB3: with no ordinal taken twice, each wrapper the prototype made recorded one spec.
        let made = ordinalTakenTwice ? nil : specs.reduce(0) { $0 + ($1 == nil ? 0 : 1) }
        return (fields, ambiguous, made)
    }

    /// The number of stored fields of `cls`, its superclasses' included.
    private static func fieldCount(_ cls: AnyClass) -> Int {
        var count = 0
        _forEachField(of: cls, options: classFields) { _, _, _, _ in
            count += 1
            return true
        }
        return count
    }
}
