// A value boxed for saving: the entity it maps onto, its identity, and its properties as store
// values and nested nodes. Built whole before anything is written (`ValueSaver`), so a value that
// does not fit its entity is rejected before any object changes.

import Foundation
import CdObjects

/// One boxed value and the values nested in it.
final class ValueNode {
    /// How the value finds the object it stands for.
    enum Identity {
        /// A plain value, or a persistent one never saved: a new object.
        case new
        /// A persistent value saved before.
        case objectID(ObjectID)
        /// A unique value: the object whose attribute `name` equals `value`, if any.
        case unique(name: String, value: CdValue)
    }

    let valueType: any CdManagedStruct.Type
    let entity: String
    var identity: Identity = .new
    /// Attribute name → store value (`.null` for a nil optional).
    var attributes: [String: CdValue] = [:]
    /// To-one relationship name → the nested node (nil: no target).
    var toOne: [String: ValueNode?] = [:]
    /// To-many relationship name → the nested nodes, in the value's order.
    var toMany: [String: [ValueNode]] = [:]
    /// The object the node is saved into, once resolved.
    var object: CdManagedObject?
    /// Whether `object` is inserted by this save.
    var isInserted = false

    init(valueType: any CdManagedStruct.Type, entity: String) {
        self.valueType = valueType
        self.entity = entity
    }

    var structName: String { String(describing: valueType) }

    /// This node and every node nested in it, each once, parents first.
    var allNodes: [ValueNode] {
        var result: [ValueNode] = []
        var seen = Set<ObjectIdentifier>()
        func visit(_ node: ValueNode) {
            guard seen.insert(ObjectIdentifier(node)).inserted else { return }
            result.append(node)
            for case let child? in node.toOne.values { visit(child) }
            for children in node.toMany.values { children.forEach(visit) }
        }
        visit(self)
        return result
    }

    /// A `CdValueError` about this node's value.
    func error(_ kind: CdValueError.Kind, _ property: String?, _ message: String) -> CdValueError {
        CdValueError(kind, structName: structName, property: property, entity: entity, message: message)
    }
}
