// Saving and deleting values in the running transaction. A save boxes the whole value (nested
// values too) into `ValueNode`s, resolves every node to its object and checks required
// attributes — reads only — and only then writes. So a value that does not fit its entity, or
// names an object that is gone, changes nothing.
//
// Invariants:
//   CV2. Nothing is written to any object before every node of the save is boxed, resolved and
//        checked: the write phase cannot fail.
//   CV3. A node resolves to at most one object, and nodes with the same identity (ObjectID, or
//        entity and unique identifier) in one save resolve to the same object.
//   CV4. A property whose stored value already equals the value's is not written, so saving an
//        unchanged value changes nothing (no update events, no change set entries).

import Foundation
import CdObjects

enum ValueSaver {
    /// Saves `value` and the values nested in it; returns the object of `value`.
    static func save(_ value: any CdManagedStruct, call: String) throws -> CdManagedObject {
        let context = try transactionContext(call, onMain: .d1, outside: .d2)
        let model = context.container.model
        let root = try ValueBoxer.box(value, model: model.objectModel)
        let nodes = root.allNodes
        // Resolve (reads only; keeps CV2, CV3).
        var byID: [ObjectID: CdManagedObject] = [:]
        var byIdentifier: [String: ValueNode] = [:]
        var newIDs: [ObjectIdentifier: ObjectID] = [:]
        for node in nodes {
            switch node.identity {
            case let .objectID(id):
                if let known = byID[id] {
                    node.object = known
                } else {
                    let object = try existing(id, node, context)
                    byID[id] = object
                    node.object = object
                }
            case let .unique(name, identifier):
                let key = "\(node.entity)\u{0}\(identifier)"
                if let first = byIdentifier[key] {
                    node.object = first.object
                    if node.object == nil { newIDs[ObjectIdentifier(node)] = newIDs[ObjectIdentifier(first)] }
                } else {
                    node.object = try unique(node.entity, name, identifier, context)
                    byIdentifier[key] = node
                }
            case .new:
                break
            }
            if node.object == nil, newIDs[ObjectIdentifier(node)] == nil {
                newIDs[ObjectIdentifier(node)] = try context.container.store.newObjectIDs(
                    entity: node.entity, count: 1)[0]
            }
        }
        for node in nodes { try checkRequired(node, model.objectModel, inserted: node.object == nil) }
        // Write (cannot fail: keeps CV2).
        var inserted: [ObjectID: CdManagedObject] = [:]
        for node in nodes where node.object == nil {
            guard let id = newIDs[ObjectIdentifier(node)] else { continue }
            if let object = inserted[id] {
                node.object = object
                continue
            }
            let object = (model.objectClass(for: node.entity) ?? CdManagedObject.self).init()
            object.prepareNew(entity: node.entity, in: model)
            context.insertNew(object, id: id)
            inserted[id] = object
            node.object = object
        }
        for node in nodes { write(node, model.objectModel) }
        guard let object = root.object else {
            // Unreachable: every node was resolved or inserted above.
            throw root.error(.notFound, nil, "the value's object could not be made.")
        }
        return object
    }

    /// Deletes the object a persistent or unique value stands for.
    static func delete(_ value: any CdManagedStruct, call: String) throws {
        let context = try transactionContext(call, onMain: .e1, outside: .e2)
        let node = try ValueBoxer.box(value, model: context.container.model.objectModel)
        let object: CdManagedObject?
        switch node.identity {
        case let .objectID(id):
            object = try existing(id, node, context)
        case let .unique(name, identifier):
            object = try unique(node.entity, name, identifier, context)
        case .new:
            throw node.error(
                .notSaved, "objectID", "the value was never saved (its objectID is nil), so there is nothing to delete."
            )
        }
        if let object { try context.markDeleted(object) }
    }

    // MARK: - Phases

    /// The running transaction's context; misuse `onMain` on the main thread, `outside` elsewhere.
    static func transactionContext(
        _ call: String, onMain: CdMisuse.Kind, outside: CdMisuse.Kind
    ) throws -> CdManagedObjectContext {
        _ = try Cd.requireContainer(call)
        return try Cd.writingTransaction(
            call, onMain: onMain, outside: outside,
            advice: "Save and delete values inside Cd.transact { } / Cd.transactAndWait { }.")
    }

    /// The object of `id` in `context`; `notFound` when it is deleted or was never there.
    private static func existing(
        _ id: ObjectID, _ node: ValueNode, _ context: CdManagedObjectContext
    ) throws -> CdManagedObject {
        let model = context.container.model.objectModel
        guard id.entity == node.entity || model.isEntity(id.entity, kindOf: node.entity) else {
            throw node.error(.entityMismatch, "objectID", "objectID \(id) is not an object of entity '\(node.entity)'.")
        }
        if let known = context.registered(id) {
            if known.isDeleted { throw node.error(.notFound, "objectID", "object \(id) was deleted.") }
            return known
        }
        guard try context.loadValues(id) != nil, let object = context.object(for: id) else {
            throw node.error(.notFound, "objectID", "object \(id) does not exist (any more).")
        }
        return object
    }

    /// The object of `entity` whose `name` equals `identifier` (pending changes included).
    private static func unique(
        _ entity: String, _ name: String, _ identifier: CdValue, _ context: CdManagedObjectContext
    ) throws -> CdManagedObject? {
        var request = CdFetchRequest<CdManagedObject>(entityName: entity, dictionaries: false)
        request = request.filter(CdPredicate.comparison(PredicateComparison(.key(name), .equal, .constant(identifier))))
        return try request.fetch().first
    }

    /// Throws `missingRequiredAttribute` for a required attribute the value leaves nil (or, for
    /// a new object, does not give and the model has no default for).
    private static func checkRequired(_ node: ValueNode, _ model: ObjectModel, inserted: Bool) throws {
        for attribute in model.allAttributes(of: node.entity) where !attribute.isOptional && !attribute.isTransient {
            let value = node.attributes[attribute.name]
            if value?.isNull == true || (value == nil && inserted && attribute.defaultValue == nil) {
                throw node.error(
                    .missingRequiredAttribute, attribute.name,
                    "attribute '\(attribute.name)' is required, and the value has none.")
            }
        }
    }

    /// Writes the node's properties to its object, leaving equal ones alone (keeps CV4).
    private static func write(_ node: ValueNode, _ model: ObjectModel) {
        guard let object = node.object else { return }
        for (key, value) in node.attributes where object.readAttribute(key) != value {
            object.writeAttribute(key, value)
        }
        for (key, target) in node.toOne {
            let targets = target?.object.map { [$0] } ?? []
            if object.rawTargets(key) != targets.compactMap(\.objectID) {
                object.writeRelationship(key, targets, toMany: false)
            }
        }
        for (key, children) in node.toMany {
            var seen = Set<ObjectIdentifier>()
            let targets = children.compactMap(\.object).filter { seen.insert(ObjectIdentifier($0)).inserted }
            let old = object.rawTargets(key), new = targets.compactMap(\.objectID)
            let ordered = model.relationship(key, of: node.entity)?.isOrdered ?? true
            if ordered ? old != new : Set(old) != Set(new) {
                object.writeRelationship(key, targets, toMany: true)
            }
        }
    }
}
