// `@Relationship`: a to-one (`T?`), unordered to-many (`Set<T>`) or ordered to-many (`[T]`)
// relationship of a `CdManagedObject` subclass. Like `@Attribute` it holds no value, only its
// ordinal: reads and writes go through the object's context (checks I, J and K), and its options
// reach the model builder as a `RelationshipSpec` recorded for the prototype only.

import Foundation
import CdObjects

/// A Swift type a ``Relationship`` can hold: `T?` (to-one), `Set<T>` (to-many) or `[T]`
/// (ordered to-many), where `T` is a ``CdManagedObject`` subclass.
public protocol CdRelationshipValue {
    /// The destination class.
    static var cdDestination: CdManagedObject.Type { get }
    /// To-many (`Set`, `Array`) or to-one (`Optional`).
    static var cdIsToMany: Bool { get }
    /// Ordered to-many (`Array`).
    static var cdIsOrdered: Bool { get }
    /// The value holding `objects` (objects of another class are left out).
    static func fromObjects(_ objects: [CdManagedObject]) -> Self
    /// The related objects.
    var cdObjects: [CdManagedObject] { get }
}

/// `T?`: a to-one relationship.
extension Optional: CdRelationshipValue where Wrapped: CdManagedObject {
    public static var cdDestination: CdManagedObject.Type { Wrapped.self }
    public static var cdIsToMany: Bool { false }
    public static var cdIsOrdered: Bool { false }
    public static func fromObjects(_ objects: [CdManagedObject]) -> Wrapped? { objects.first as? Wrapped }
    public var cdObjects: [CdManagedObject] { self.map { [$0] } ?? [] }
}

/// `Set<T>`: an unordered to-many relationship.
extension Set: CdRelationshipValue where Element: CdManagedObject {
    public static var cdDestination: CdManagedObject.Type { Element.self }
    public static var cdIsToMany: Bool { true }
    public static var cdIsOrdered: Bool { false }
    public static func fromObjects(_ objects: [CdManagedObject]) -> Set<Element> {
        Set(objects.compactMap { $0 as? Element })
    }
    public var cdObjects: [CdManagedObject] { Array(self) }
}

/// `[T]`: an ordered to-many relationship.
extension Array: CdRelationshipValue where Element: CdManagedObject {
    public static var cdDestination: CdManagedObject.Type { Element.self }
    public static var cdIsToMany: Bool { true }
    public static var cdIsOrdered: Bool { true }
    public static func fromObjects(_ objects: [CdManagedObject]) -> [Element] { objects.compactMap { $0 as? Element } }
    public var cdObjects: [CdManagedObject] { self }
}

/// A relationship of a managed object. The destination entity is the value's class; the inverse
/// is named on either side or both.
///
/// ```swift
/// final class Department: CdManagedObject {
///     @Relationship(inverse: "department", deleteRule: .cascade) var employees: Set<Employee>
/// }
/// final class Employee: CdManagedObject {
///     @Relationship(inverse: "employees") var department: Department?
/// }
/// ```
@propertyWrapper
public struct Relationship<Value: CdRelationshipValue>: CdPropertyWrapper {
    @usableFromInline let ordinal: Int

    /// A relationship; `deleteRule` defaults to Nullify, as in Xcode.
    public init(
        inverse: String? = nil, deleteRule: DeleteRule = .nullify, minCount: Int = 0,
        maxCount: Int? = nil, optional: Bool = true
    ) {
        self.ordinal = WrapperOrdinals.take(
            RelationshipSpec<Value>(
                inverse: inverse, deleteRule: deleteRule, minCount: minCount, maxCount: maxCount,
                isOptional: optional))
    }

    /// Not used: every access goes through the enclosing object (see the static subscript).
    @available(*, unavailable, message: "@Relationship is only available on CdManagedObject subclasses")
    public var wrappedValue: Value {
        get { fatalError("unavailable") }
        set { fatalError("unavailable") }
    }

    // Inlinable, as `Attribute`'s is: each class's accessors specialise it, so the storage key
    // path reads the wrapper's ordinal as a field instead of through a generic projection.
    /// Reads and writes go through the object's context, which checks confinement.
    @inlinable
    public static subscript<Object: CdManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Relationship<Value>>
    ) -> Value {
        get {
            let slot = object.slot(storageKeyPath, ordinal: object[keyPath: storageKeyPath].ordinal)
            return Value.fromObjects(object.readRelationship(slot))
        }
        set {
            let slot = object.slot(storageKeyPath, ordinal: object[keyPath: storageKeyPath].ordinal)
            object.writeRelationship(slot, newValue.cdObjects, toMany: Value.cdIsToMany)
        }
    }
}

/// What the model builder needs from a `@Relationship`: its destination, inverse and rules.
struct RelationshipSpec<Value: CdRelationshipValue>: WrapperSpec {
    let inverse: String?
    let deleteRule: DeleteRule
    let minCount: Int
    let maxCount: Int?
    let isOptional: Bool

    var wrapperType: Any.Type { Relationship<Value>.self }

    func ordinal(in object: UnsafeRawPointer, at offset: Int) -> Int {
        object.load(fromByteOffset: offset, as: Relationship<Value>.self).ordinal
    }

    func property(name: String) -> WrapperProperty { .relationship(description(name: name)) }

    func description(name: String) -> RelationshipDescription {
        RelationshipDescription(
            name: name, destination: Value.cdDestination.entityName, inverse: inverse,
            isToMany: Value.cdIsToMany, isOrdered: Value.cdIsOrdered, deleteRule: deleteRule,
            minCount: minCount, maxCount: maxCount, isOptional: isOptional)
    }
}
