// Object lifecycle (docs/CADMIUM-API.md §3): create, insert, delete, and moving objects between
// contexts (useInCurrentContext, onMainWith), with checks B, D, E and G.
//
// `insert`, `delete` and `useInCurrentContext` have Cadmium's non-throwing signatures: a misuse
// goes to `Cd.misuseHandler` and, if the handler returns, the call does nothing (nil / `[]`); a
// store failure goes to `Cd.commitFailureHandler`. The `throwing…` functions below do the work
// and throw; `Cd.throwing` (Cd+Throwing.swift) makes them public.

import Foundation
import CdObjects

extension Cd {
    // MARK: - Create

    /// A new object of `T`'s entity in the running transaction, with a permanent ID at once; or,
    /// with `transient: true`, a context-less object (allowed on any thread) to insert later.
    ///
    /// ```swift
    /// try Cd.transactAndWait {
    ///     let item = try Cd.create(Item.self)
    ///     item.name = "F"
    /// }
    /// ```
    public static func create<T: CdManagedObject>(_ entityType: T.Type, transient: Bool = false) throws -> T {
        let objects = try create(entityType, count: 1, transient: transient, single: true)
        return objects[0]
    }

    /// `count` new objects (`[]` at once when `count <= 0`, before any check).
    public static func create<T: CdManagedObject>(
        _ entityType: T.Type, count: Int, transient: Bool = false
    ) throws -> [T] {
        try create(entityType, count: count, transient: transient, single: false)
    }

    private static func create<T: CdManagedObject>(
        _ type: T.Type, count: Int, transient: Bool, single: Bool
    ) throws -> [T] {
        guard count > 0 else { return [] }
        let container = try requireContainer("Cd.create(\(T.self).self)")
        guard let entity = container.model.entity(for: type) else {
            throw Misuse.report(
                .b1,
                "Cd.create(\(T.self).self): the model has no entity named '\(T.entityName)'. "
                    + "Add the class to CdModel(classes:), or override `class var entityName` to name its entity.")
        }
        // Built only for a report (describing the type costs about a microsecond per create).
        func form() -> String { single ? "Cd.create(\(T.self).self)" : "Cd.create(\(T.self).self, count: \(count))" }
        var context: CdManagedObjectContext?
        if !transient {
            if ThreadState.isMain {
                throw Misuse.report(
                    .b2,
                    "\(form()) was called on the main thread, whose context is read-only. "
                        + "Create objects inside Cd.transact { } (or with create(_:) of a CdEditingContext on the "
                        + "main actor), or pass transient: true and Cd.insert(_:) the object in a transaction later."
                )
            }
            guard let current = ThreadState.current.context, current.kind == .transaction else {
                throw Misuse.report(
                    .b3,
                    "\(form()) was called on a background thread outside any transaction. "
                        + "Create objects inside Cd.transact { } / Cd.transactAndWait { }, or pass transient: true.")
            }
            context = current
        }
        if let context {
            context.flushIfNeeded()
            return try context.createNew(T.self, entity: entity.name, count: count)
        }
        return (0..<count).map { _ in
            let object = T()
            object.prepareNew(entity: entity.name, in: container.model)
            return object
        }
    }

    /// Attribute defaults and empty relationships of a new object.
    static func defaultValues(of entity: String, in model: ObjectModel) -> [String: PropertyValue] {
        var values: [String: PropertyValue] = [:]
        for attribute in model.allAttributes(of: entity) {
            values[attribute.name] = .attribute(attribute.defaultValue ?? .null)
        }
        for relationship in model.allRelationships(of: entity) {
            values[relationship.name] = relationship.isToMany ? .toMany([]) : .toOne(nil)
        }
        return values
    }

    // MARK: - Insert

    /// Moves a transient object into the running transaction. Only attribute values are carried
    /// over (as in Cadmium); an object already in this context is left alone. Checks D1–D3.
    ///
    /// ```swift
    /// let draft = try Cd.create(Item.self, transient: true)   // on any thread
    /// draft.name = "F"
    /// Cd.transact { Cd.insert(draft) }
    /// ```
    public static func insert(_ object: CdManagedObject) {
        reporting { try throwingInsert(object) }
    }

    /// Inserts each object; those before a failing one stay inserted.
    public static func insert(_ objects: [CdManagedObject]) {
        reporting { try throwingInsert(objects) }
    }

    static func throwingInsert(_ object: CdManagedObject) throws {
        if ThreadState.isMain {
            throw Misuse.report(
                .d1,
                "Cd.insert(\(object)) was called on the main thread, whose context is read-only. "
                    + "Insert transient objects inside Cd.transact { }, or with insert(_:) of a CdEditingContext.")
        }
        guard let context = ThreadState.current.context, context.kind == .transaction else {
            throw Misuse.report(
                .d2,
                "Cd.insert(\(object)) was called on a background thread outside any transaction. "
                    + "Insert transient objects inside Cd.transact { } / Cd.transactAndWait { }.")
        }
        if let owner = object.managedObjectContext {
            if owner === context { return }
            throw Misuse.report(
                .d3,
                "Cd.insert(\(object)): the object already belongs to \(owner), not to the current "
                    + "\(context). Only transient objects can be inserted; "
                    + "use Cd.useInCurrentContext(_:) to move a saved object."
            )
        }
        try context.insertTransient(object)
    }

    static func throwingInsert(_ objects: [CdManagedObject]) throws {
        for object in objects { try throwingInsert(object) }
    }

    // MARK: - Delete

    /// Deletes `object` in the running transaction; delete rules run at the commit. Checks E1–E4.
    ///
    /// ```swift
    /// Cd.transact {
    ///     Cd.delete(try! Cd.objects(Employee.self).filter("name = %@", "Bob").fetch())
    /// }
    /// ```
    public static func delete(_ object: CdManagedObject) {
        reporting { try throwingDelete(object) }
    }

    /// Deletes each object; those before a failing one stay deleted.
    public static func delete(_ objects: [CdManagedObject]) {
        reporting { try throwingDelete(objects) }
    }

    static func throwingDelete(_ object: CdManagedObject) throws {
        if ThreadState.isMain {
            throw Misuse.report(
                .e1,
                "Cd.delete(\(object)) was called on the main thread, whose context is read-only. "
                    + "Delete inside Cd.transactWith(object) { obj in Cd.delete(obj!) }, or with delete(_:) of a "
                    + "CdEditingContext on that context's own object.")
        }
        guard let context = ThreadState.current.context, context.kind == .transaction else {
            throw Misuse.report(
                .e2,
                "Cd.delete(\(object)) was called on a background thread outside any transaction. "
                    + "Delete inside Cd.transact { } / Cd.transactAndWait { }.")
        }
        guard let owner = object.managedObjectContext else {
            throw Misuse.report(
                .e4,
                "Cd.delete(\(object)): the object is transient (it has no context), so there is "
                    + "nothing to delete in \(context). Drop the reference instead, or Cd.insert(_:) it first.")
        }
        guard owner === context else {
            throw Misuse.report(
                .e3,
                "Cd.delete(\(object)): the object belongs to \(owner), not to the current \(context). "
                    + "Get it in this transaction with Cd.useInCurrentContext(_:) and delete that one.")
        }
        try context.markDeleted(object)
    }

    static func throwingDelete(_ objects: [CdManagedObject]) throws {
        for object in objects { try throwingDelete(object) }
    }

    // MARK: - Moving objects between contexts

    /// The same object in the calling thread's context (the main context on main, the
    /// transaction's inside one), re-read from the store; nil when it no longer exists, or
    /// after a misuse (G1–G3) if the misuse handler returns.
    ///
    /// ```swift
    /// Cd.transact {
    ///     guard let txEmployee = Cd.useInCurrentContext(employee) else { return }
    ///     txEmployee.salary += 10000
    /// }
    /// ```
    public static func useInCurrentContext<T: CdManagedObject>(_ object: T) -> T? {
        reporting { try throwingUseInCurrentContext(object) } ?? nil
    }

    /// The objects available in the calling thread's context; the others are dropped (and
    /// all of them after a misuse, if the misuse handler returns).
    public static func useInCurrentContext<T: CdManagedObject>(_ objects: [T]) -> [T] {
        reporting { try throwingUseInCurrentContext(objects) } ?? []
    }

    static func throwingUseInCurrentContext<T: CdManagedObject>(_ object: T) throws -> T? {
        guard let context = ThreadState.currentContext else {
            throw Misuse.report(
                .g1,
                "Cd.useInCurrentContext(\(object)) was called on a background thread outside any "
                    + "transaction, which has no context to move the object to. Call it inside Cd.transact { }.")
        }
        let owner = object.managedObjectContext
        if owner === context { return object }
        if let owner, owner.kind == .transaction || owner.kind == .editing, owner.hasChanges {
            throw Misuse.report(
                .g2,
                "Cd.useInCurrentContext(\(object)): the object belongs to \(owner), which has "
                    + "uncommitted changes. Commit that transaction first (Cd.commit(), or let it end; "
                    + "save() an editing context), then move the object."
            )
        }
        guard let id = object.objectID else {
            throw Misuse.report(
                .g3,
                "Cd.useInCurrentContext(\(object)): the object is transient and was never saved, so "
                    + "it has no permanent ID. Cd.insert(_:) it inside a transaction and commit before moving it.")
        }
        if let known = context.registered(id) {
            if known.hasChanges { return known as? T }
            let values = try context.loadValues(id)
            guard values != nil else { return nil }
            known.refresh(with: values)
            context.sendRefreshed(known)
            return known as? T
        }
        guard let values = try context.loadValues(id) else { return nil }
        let moved = context.object(for: id)
        moved?.refresh(with: values)
        return moved as? T
    }

    static func throwingUseInCurrentContext<T: CdManagedObject>(_ objects: [T]) throws -> [T] {
        try objects.compactMap { try throwingUseInCurrentContext($0) }
    }

    /// Runs `body`; a misuse it throws was reported, any other error goes to
    /// ``commitFailureHandler``. Nil when it threw.
    @discardableResult
    static func reporting<R>(_ body: () throws -> R) -> R? {
        do {
            return try body()
        } catch {
            reportUnthrown(error)
            return nil
        }
    }

    /// Runs `operation` on the main queue with `object` in the main context (nil if it is nil
    /// or not available).
    ///
    /// ```swift
    /// Cd.onMainWith(item) { item in label.text = item?.name }
    /// ```
    public static func onMainWith<T: CdManagedObject>(_ object: T?, operation: @escaping (T?) -> Void) {
        let objectBox = Unchecked(object), operationBox = Unchecked(operation)
        let container = Cd.container  // carried to the main queue (CN3)
        DispatchQueue.main.async {
            withContainer(ifAny: container) {
                let moved = objectBox.value.flatMap { useInCurrentContext($0) }
                operationBox.value(moved)
            }
        }
    }

    /// Runs `operation` on the main queue with `objects` in the main context; unavailable
    /// ones are dropped.
    public static func onMainWith<T: CdManagedObject>(_ objects: [T], operation: @escaping ([T]) -> Void) {
        let objectsBox = Unchecked(objects), operationBox = Unchecked(operation)
        let container = Cd.container  // carried to the main queue (CN3)
        DispatchQueue.main.async {
            withContainer(ifAny: container) {
                let moved = useInCurrentContext(objectsBox.value)
                operationBox.value(moved)
            }
        }
    }
}
