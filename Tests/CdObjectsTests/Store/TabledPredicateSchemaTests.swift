// The store layout's predicate schema table (FK4) answers every entity and key exactly as
// `ModelPredicateSchema` does: declared and inherited attributes and relationships, a transient
// attribute (nil), keys of other entities, unknown keys and an unknown entity.

import Testing
@testable import CdObjects

@Suite("Predicate schema table")
struct TabledPredicateSchemaTests {
    @Test func theTableAnswersAsTheModelSchema() throws {
        let model = try companyModel()
        let tabled = TabledPredicateSchema(model)
        let direct = ModelPredicateSchema(model)
        var keys: Set<String> = ["nope", "", "department.name", "onBreak"]
        for entity in model.entityNames {
            for a in model.allAttributes(of: entity) { keys.insert(a.name) }
            for r in model.allRelationships(of: entity) { keys.insert(r.name) }
        }
        var answered = 0
        for entity in model.entityNames + ["Nobody"] {
            for key in keys {
                let expected = direct.property(key, ofEntity: entity)
                #expect(tabled.property(key, ofEntity: entity) == expected, "\(entity).\(key)")
                if expected != nil { answered += 1 }
            }
        }
        // The comparison covered real properties, inherited ones among them, and the transient one.
        #expect(answered > model.entityNames.count)
        #expect(direct.property("level", ofEntity: "Manager") != nil)
        #expect(tabled.property("badge", ofEntity: "Manager") == direct.property("badge", ofEntity: "Employee"))
        #expect(tabled.property("onBreak", ofEntity: "Employee") == nil)
    }
}
