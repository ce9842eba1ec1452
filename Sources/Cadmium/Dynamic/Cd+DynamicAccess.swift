// Access by entity name, for models that have no classes (a migration stage, a tool, the data of
// an old model version): `Cd.create(entityNamed:)` and `Cd.objects(entityNamed:)`. The objects
// are instances of the entity's bound class when it has one, else plain `CdManagedObject`s, read
// and written with `value(forKey:)` / `setValue(_:forKey:)` (CdManagedObject+KeyValue.swift).
// The confinement checks are those of the typed calls (A1, B2, B3, C1).

import Foundation
import CdObjects

extension Cd {
    /// A new object of the entity named `entityName` in the running transaction, with a permanent
    /// ID at once (or, with `transient: true`, a context-less object to insert later). The
    /// object's class is the entity's bound class, else ``CdManagedObject``.
    ///
    /// - Throws: ``CdDynamicAccessError/unknownEntity(_:)`` when the model has no such entity;
    ///   a ``CdMisuse`` (B2, B3) as ``create(_:transient:)`` does; a store error for an abstract
    ///   entity.
    /// ```swift
    /// try Cd.transactAndWait {
    ///     let car = try Cd.create(entityNamed: "Car")
    ///     try car.setValue("B-CD 42", forKey: "numberPlate")
    /// }
    /// ```
    public static func create(entityNamed entityName: String, transient: Bool = false) throws -> CdManagedObject {
        let container = try requireContainer("Cd.create(entityNamed: \"\(entityName)\")")
        guard container.model.objectModel.entity(named: entityName) != nil else {
            throw CdDynamicAccessError.unknownEntity(entityName)
        }
        let form = "Cd.create(entityNamed: \"\(entityName)\")"
        let context =
            transient
            ? nil
            : try writingTransaction(
                form, onMain: .b2, outside: .b3,
                advice: "Create objects inside Cd.transact { } / Cd.transactAndWait { }, or pass transient: true.")
        let id = try context.map { _ in try container.store.newObjectIDs(entity: entityName, count: 1)[0] }
        let object = (container.model.objectClass(for: entityName) ?? CdManagedObject.self).init()
        object.prepareNew(entity: entityName, in: container.model)
        if let context, let id { context.insertNew(object, id: id) }
        return object
    }

    /// A query for objects of the entity named `entityName` (its sub-entities included), as
    /// ``CdManagedObject``s. An unknown name fails at the terminal (`fetch()`, `count()`) with the
    /// query's usual error.
    ///
    /// ```swift
    /// let cars = try Cd.objects(entityNamed: "Car").filter("numberPlate BEGINSWITH %@", "B-").fetch()
    /// let plate = try cars.first?.value(forKey: "numberPlate") as? String
    /// ```
    public static func objects(entityNamed entityName: String) -> CdFetchRequest<CdManagedObject> {
        CdFetchRequest<CdManagedObject>(entityName: entityName, dictionaries: false)
    }
}
