// The predicate schema of a model as one table built when the store's layout is: every fetch
// validates its predicate (QueryExecutor.check), and `ModelPredicateSchema` answers each key by
// gathering the entity's inherited properties and searching them by name, which a fetch in a
// loop paid on every call.
//
// Invariants:
//  FK4. `property(key, ofEntity: entity)` answers exactly what `ModelPredicateSchema(model)`
//       answers: the table holds that answer for every attribute and relationship of every
//       entity, declared or inherited, whose answer is not nil, and every other pair answers nil
//       there (an unknown entity, an unknown key, a transient property).

/// `ModelPredicateSchema` of one model, looked up in a table (FK4).
struct TabledPredicateSchema: PredicateSchema, Sendable {
    private let table: [String: [String: PredicateSchemaProperty]]

    /// The table of `model` (keeps FK4: each entry is the model schema's own answer).
    init(_ model: ObjectModel) {
        let schema = ModelPredicateSchema(model)
        var table: [String: [String: PredicateSchemaProperty]] = [:]
        for entity in model.entityNames {
            var properties: [String: PredicateSchemaProperty] = [:]
            let names = model.allAttributes(of: entity).map(\.name) + model.allRelationships(of: entity).map(\.name)
            for name in names where properties[name] == nil {
                if let property = schema.property(name, ofEntity: entity) { properties[name] = property }
            }
            table[entity] = properties
        }
        self.table = table
    }

    func property(_ key: String, ofEntity entity: String) -> PredicateSchemaProperty? { table[entity]?[key] }
}
