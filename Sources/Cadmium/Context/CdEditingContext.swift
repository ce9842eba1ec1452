// `CdEditingContext`: the editing kind of context (docs/CADMIUM-API.md §4), the `Cd` API's
// counterpart of Core Data's main-queue `NSManagedObjectContext` and SwiftData's `mainContext`.
// It lives as long as its owner holds it, on the main actor; objects are created, changed and
// deleted in it directly, and stay pending until `save()` commits them (any number of times) or
// `rollback()` drops them. Fetches in it (`fetch(in:)`, `count(in:)`) see its pending changes.
// Every other commit of the container (transactions, other editing contexts, other users of the
// file) reaches it through the main queue's merge, which refaults the objects the commit changed
// with this context's edits kept on top, and marks deleted those it deleted (MC6 of
// CdManagedObjectContext.swift).
//
// Invariants:
//  EC1. The context belongs to one container for its whole life, whatever `Cd`'s default or
//       current container becomes later (CN2).
//  EC2. Its objects are used on the main actor only: checks I5 and J5 report any other thread;
//       the context itself is `@MainActor`, so the compiler keeps its own calls there.
//
// Confinement: the main actor (compile time for the context, run time for its objects).

import Foundation
import CdObjects

/// A long-lived context for editing on the main actor: objects are created, changed and deleted
/// in it, and their changes are pending until ``save()`` (or dropped by ``rollback()``), as in
/// Core Data's main-queue context. Fetches in it see its pending changes; commits made elsewhere
/// refresh its objects (its own changes kept on top) after they are merged on the main queue.
///
/// ```swift
/// @MainActor func rename() throws {
///     let editor = try Cd.newEditingContext()
///     let team = try editor.create(Department.self)
///     team.name = "Research"
///     let staff = try Cd.objects(Employee.self).filter("salary > %@", 100_000).fetch(in: editor)
///     for member in staff { member.department = team }
///     try editor.save()            // one commit: all or nothing
/// }
/// ```
/// The main context stays read-only and transactions work as before; an editing context is for
/// screens that edit in place and save when the user says so.
@MainActor
public final class CdEditingContext {
    /// The context its objects belong to (`managedObjectContext` of each of them).
    public nonisolated let context: CdManagedObjectContext

    /// The container the context edits (EC1).
    public nonisolated var container: CdContainer { context.container }

    /// A new editing context of `container`.
    public init(container: CdContainer) {
        let number = container.nextContextNumber()
        context = CdManagedObjectContext(kind: .editing, container: container, number: number)
        container.main.observeMerges(context)  // MC6
    }

    /// A context dropped with unsaved changes forgets them, as Core Data's does: its pending
    /// objects no longer hold it, nor it them.
    isolated deinit {
        if context.hasChanges { context.rollback() }
    }

    // MARK: - Changes

    /// Whether the context has changes not saved yet.
    public var hasChanges: Bool { context.hasChanges }

    /// The objects inserted since the last save (Core Data's `insertedObjects`).
    public var insertedObjects: Set<CdManagedObject> {
        Set(
            context.lock.withLock { context.insertedObjects }.filter { $0.withState { $0.isInserted && !$0.isDeleted } }
        )
    }

    /// The stored objects changed since the last save, deleted ones excepted (`updatedObjects`).
    public var updatedObjects: Set<CdManagedObject> {
        Set(
            context.lock.withLock { context.changedObjects }.filter {
                $0.withState { $0.hasChangedValues && !$0.isDeleted }
            })
    }

    /// The stored objects deleted since the last save (`deletedObjects`); an object inserted and
    /// deleted again since then is in none of the three sets.
    public var deletedObjects: Set<CdManagedObject> {
        Set(context.lock.withLock { context.heldDeleted }.filter { $0.withState { !$0.isInserted && $0.isDeleted } })
    }

    /// Commits the pending changes in one store transaction (all or nothing: validation,
    /// uniqueness, delete rules), durable when this returns; nothing happens when there are none.
    /// A failure leaves the changes pending, to be fixed and saved again, or rolled back.
    ///
    /// ```swift
    /// do { try editor.save() } catch let error as CdError { show(error) }
    /// ```
    public func save() throws {
        let container = context.container
        guard container.running.enter() else {
            throw Misuse.report(
                .a1,
                "save() of \(context), whose container Cd.close() (or CdContainer.close()) has closed. "
                    + "Open the store again and make a new editing context.")
        }
        defer { container.running.leave() }
        try context.commit()
    }

    /// Drops every change made since the last save: inserted objects leave the context (as
    /// transient objects), changed and deleted ones read the stored values when next used.
    public func rollback() { context.rollback() }

    /// Who makes this context's changes, recorded with each save in the persistent history.
    public var transactionAuthor: String? {
        get { context.transactionAuthor }
        set { context.transactionAuthor = newValue }
    }

    /// A name of this context, recorded with its saves in the persistent history.
    public var name: String? {
        get { context.name }
        set { context.name = newValue }
    }

    /// How a save resolves attributes another commit changed after this context read them; nil
    /// uses the store's (``Cd/mergePolicy``).
    public var mergePolicy: MergePolicy? {
        get { context.mergePolicy }
        set { context.mergePolicy = newValue }
    }

    /// Makes `object` read the store's values when next used. With `mergeChanges` its unsaved
    /// changes stay on top of them; without, they are dropped (a deletion too), while the edits
    /// they made to other objects' relationships (the inverse sides) stay pending, as in Core
    /// Data; ``rollback()`` drops everything. An object inserted since the last save, or one of
    /// another context, is left as it is.
    ///
    /// ```swift
    /// editor.refresh(employee, mergeChanges: false)   // forget this employee's edits
    /// ```
    public func refresh(_ object: CdManagedObject, mergeChanges: Bool) {
        context.refresh(object, keepingChanges: mergeChanges)
    }

    /// Makes every object of the context read the store's values when next used, keeping the
    /// unsaved changes (Core Data's `refreshAllObjects()`).
    public func refreshAllObjects() {
        let live = context.lock.withLock { context.registry.values.compactMap(\.object) }
        for object in live { object.refaultKeepingChanges() }
    }

    // MARK: - Objects

    /// A new object of `T`'s entity in this context, with a permanent ID at once; it is stored by
    /// the next ``save()``.
    public func create<T: CdManagedObject>(_ entityType: T.Type) throws -> T {
        if context.container.isClosed {
            throw Misuse.report(
                .a1,
                "create(\(T.self).self) in \(context), whose container is closed. Open the store again and "
                    + "make a new editing context.")
        }
        guard let entity = context.container.model.entity(for: entityType) else {
            throw Misuse.report(
                .b1,
                "create(\(T.self).self) in \(context): the model has no entity named '\(T.entityName)'. "
                    + "Add the class to CdModel(classes:), or override `class var entityName` to name its entity.")
        }
        return try context.createNew(T.self, entity: entity.name, count: 1)[0]
    }

    /// Inserts a transient object (``Cd/create(_:transient:)`` with `transient: true`) into this
    /// context; its attribute values are kept. An object already here is left alone; an object of
    /// another context is misuse D3.
    public func insert(_ object: CdManagedObject) throws {
        if let owner = object.managedObjectContext {
            if owner === context { return }
            throw Misuse.report(
                .d3,
                "insert(\(object)) in \(context): the object already belongs to \(owner). Only transient "
                    + "objects can be inserted; use object(_:) to get a saved object in this context.")
        }
        try context.insertTransient(object)
    }

    /// Deletes `object` in this context; its delete rules run at the save (an object inserted
    /// since the last save runs them at once). Checks E3 (another context's object) and E4 (a
    /// transient one).
    public func delete(_ object: CdManagedObject) throws {
        guard let owner = object.managedObjectContext else {
            throw Misuse.report(
                .e4,
                "delete(\(object)) in \(context): the object is transient (it has no context), so there is "
                    + "nothing to delete. Drop the reference instead, or insert(_:) it first.")
        }
        guard owner === context else {
            throw Misuse.report(
                .e3,
                "delete(\(object)) in \(context): the object belongs to \(owner). Get it here with "
                    + "object(_:) and delete that one.")
        }
        try context.markDeleted(object)
    }

    /// The same object in this context, read from the store: the object of another context (the
    /// main context, a finished transaction's, a `Cd.read`) or this context's own. Nil when the
    /// store no longer has it. A transient object (never saved) is misuse G3.
    public func object<T: CdManagedObject>(_ object: T) throws -> T? {
        if object.managedObjectContext === context { return object }
        guard let id = object.objectID else {
            throw Misuse.report(
                .g3,
                "object(\(object)) in \(context): the object is transient and was never saved, so it has "
                    + "no permanent ID. insert(_:) it here instead.")
        }
        return try self.object(with: id) as? T
    }

    /// The object of `id` in this context: the registered one (with its pending changes), or
    /// one read from the store; nil when the store has no such object.
    public func object(with id: ObjectID) throws -> CdManagedObject? {
        if let known = context.registered(id) { return known }
        guard let values = try context.loadValues(id) else { return nil }
        let object = context.object(for: id)
        object?.refresh(with: values)
        return object
    }
}

extension Cd {
    /// A new ``CdEditingContext`` of the container `Cd` calls run against here (the current one,
    /// else the default); misuse A1 when there is none or it is closed.
    ///
    /// ```swift
    /// let editor = try Cd.newEditingContext()
    /// ```
    @MainActor
    public static func newEditingContext() throws -> CdEditingContext {
        let container = try requireContainer("Cd.newEditingContext()")
        if container.isClosed {
            throw Misuse.report(
                .a1,
                "Cd.newEditingContext() on \(container), which is closed. Open the store again first.")
        }
        return CdEditingContext(container: container)
    }
}
