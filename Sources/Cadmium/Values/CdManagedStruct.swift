// The value-type protocols: a Swift struct that maps onto an entity of the model and is boxed into
// a managed object and unboxed from one through its own Codable conformance (docs/VALUES.md).
// Three levels, as in CoreValue: boxing and unboxing only (`CdManagedStruct`), identity by
// `ObjectID` with save and delete (`CdManagedPersistentStruct`), identity by one attribute with
// save as an upsert (`CdManagedUniqueStruct`).

import Foundation
import CdObjects

/// A Codable struct that maps onto the model's entity named ``entityName``: its coding keys are
/// the entity's attribute and relationship names. Values are plain data (`Sendable`): fetched on
/// one thread, they can be used on any other.
///
/// ```swift
/// struct Note: CdManagedStruct {
///     var title: String
/// }
/// try Cd.transactAndWait {
///     let object = try Note(title: "a").toObject()     // a new managed object
///     let note = try Note(object: object)               // back to a value
/// }
/// ```
public protocol CdManagedStruct: Codable, Sendable {
    /// The entity this type maps onto; the type's unqualified name by default.
    static var entityName: String { get }
}

extension CdManagedStruct {
    /// The type's unqualified name.
    public static var entityName: String { String(describing: Self.self) }

    /// This value as a managed object of the running transaction: a new object, or for a
    /// persistent or unique value the object it stands for, with the value's properties written
    /// to it. Nested values are saved too. Inside a transaction only (misuse D1, D2 elsewhere).
    public func toObject() throws -> CdManagedObject {
        try ValueSaver.save(self, call: "\(Self.self).toObject()")
    }

    /// The value of `object`, read through this type's Decodable conformance: wherever the
    /// object is readable (its context's thread). Throws ``CdValueError`` when the object is of
    /// another entity or a property does not fit.
    public init(object: CdManagedObject) throws {
        let decoder = try ValueUnboxingDecoder(object: object, valueType: Self.self, path: [])
        try self.init(from: decoder)
    }
}

/// A value whose identity is the `ObjectID` of the object it was saved as.
///
/// ```swift
/// struct Employee: CdManagedPersistentStruct {
///     var objectID: ObjectID?          // nil until saved
///     var name: String
/// }
/// try Cd.transactAndWait {
///     var ann = Employee(objectID: nil, name: "Ann")
///     try ann.save()                    // inserts; sets objectID
///     ann.name = "Anne"
///     try ann.save()                    // updates the same object
/// }
/// ```
public protocol CdManagedPersistentStruct: CdManagedStruct {
    /// The identity of the stored object; nil for a value never saved. Never stored as an
    /// attribute: the coding key `objectID` is identity only.
    var objectID: ObjectID? { get set }
}

extension CdManagedPersistentStruct {
    /// Saves the value in the running transaction: inserts it when ``objectID`` is nil, else
    /// updates the object with that ID; nested values are saved too. Afterwards the value is
    /// what the object holds, with every `objectID` (nested ones too) set. Inside a transaction
    /// only (misuse D1 on the main thread, D2 outside a transaction).
    public mutating func save() throws {
        let object = try ValueSaver.save(self, call: "\(Self.self).save()")
        self = try Self(object: object)
    }

    /// Deletes the object this value was saved as, in the running transaction; the model's
    /// delete rules apply at the commit. Throws ``CdValueError`` (`notSaved`) for a value never
    /// saved, (`notFound`) when the object no longer exists.
    public func delete() throws {
        try ValueSaver.delete(self, call: "\(Self.self).delete()")
    }
}

/// A value whose identity is one attribute, ``identifierName``: saving updates the object with
/// that identifier if there is one, else inserts it (an upsert). `CdModel(classes:values:)` gives
/// the attribute a uniqueness constraint.
///
/// ```swift
/// struct Author: CdManagedUniqueStruct {
///     static let identifierName = "id"
///     var id: String
///     var name: String
/// }
/// try Cd.transactAndWait { try Author(id: "a1", name: "Ann").save() }
/// ```
public protocol CdManagedUniqueStruct: CdManagedStruct {
    /// The coding key (attribute name) that identifies a value.
    static var identifierName: String { get }
}

extension CdManagedUniqueStruct {
    /// Inserts the value, or updates the object whose identifier equals the value's, in the
    /// running transaction; nested values are saved too. Inside a transaction only.
    public func save() throws {
        _ = try ValueSaver.save(self, call: "\(Self.self).save()")
    }

    /// Deletes the object whose identifier equals the value's, if there is one, in the running
    /// transaction; the model's delete rules apply at the commit.
    public func delete() throws {
        try ValueSaver.delete(self, call: "\(Self.self).delete()")
    }
}
