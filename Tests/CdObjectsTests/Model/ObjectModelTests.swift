import Foundation
import Testing
@testable import CdObjects

/// Building models in code: defaults, inheritance resolution, inverse checks, name checks.
@Suite struct ObjectModelTests {
    @Test func builderDefaultsFollowCoreData() {
        let a = AttributeDescription(name: "salary", type: .integer64, defaultValue: .integer(0))
        #expect(a.isOptional && !a.isTransient && !a.isIndexed && a.validation.isEmpty && a.userInfo.isEmpty)
        let r = RelationshipDescription(name: "department", destination: "Department", inverse: "employees")
        #expect(
            !r.isToMany && !r.isOrdered && r.deleteRule == .nullify && r.minCount == 0 && r.maxCount == nil
                && r.isOptional)
        let e = EntityDescription(name: "Employee")
        #expect(e.className == "Employee" && !e.isAbstract && e.parent == nil)
        #expect(RelationshipDescription.toMany("employees", destination: "Employee", ordered: true).isToMany)
    }

    @Test func inheritanceIsResolvedRecursively() throws {
        let model = try ObjectModel(
            entities: companyEntities() + [
                EntityDescription(
                    name: "Director", parent: "Manager", attributes: [.init(name: "budget", type: .decimal)]),
                EntityDescription(name: "Intern", parent: "Employee"),
            ])
        #expect(model.directSubentities(of: "Employee").map(\.name) == ["Manager", "Intern"])
        #expect(model.allSubentities(of: "Employee").map(\.name) == ["Manager", "Director", "Intern"])
        #expect(model.allSubentities(of: "Director").isEmpty)
        #expect(model.ancestors(of: "Director").map(\.name) == ["Manager", "Employee"])
        #expect(model.rootEntity(of: "Director")?.name == "Employee")
        #expect(model.allAttributes(of: "Director").map(\.name) == ["salary", "badge", "onBreak", "level", "budget"])
        #expect(model.allRelationships(of: "Director").map(\.name) == ["department", "reports"])
        #expect(model.allUniquenessConstraints(of: "Manager") == [["badge"], ["department", "salary"]])
        #expect(model.isEntity("Director", kindOf: "Employee"))
        #expect(!model.isEntity("Employee", kindOf: "Director"))
        #expect(model.attribute("salary", of: "Director")?.defaultValue == .integer(0))
        #expect(model.inverse(of: "department", in: "Director")?.name == "employees")
    }

    @Test func inverseMayPointAtTheSourcesAncestor() throws {
        // Person.pets -> Pet (inverse owner) is declared on the parent; Pet.owner -> Student
        // finds `pets` inherited by Student, and Person.pets accepts an inverse aimed at its
        // sub-entity.
        let model = try ObjectModel(entities: [
            EntityDescription(name: "Person", relationships: [.toMany("pets", destination: "Pet", inverse: "owner")]),
            EntityDescription(
                name: "Student", parent: "Person",
                relationships: [.toMany("books", destination: "Book", inverse: "reader")]),
            EntityDescription(
                name: "Book", relationships: [.init(name: "reader", destination: "Student", inverse: "books")]),
            EntityDescription(
                name: "Pet", relationships: [.init(name: "owner", destination: "Student", inverse: "pets")]),
        ])
        #expect(model.inverse(of: "owner", in: "Pet")?.name == "pets")
        #expect(model.inverse(of: "pets", in: "Student")?.name == "owner")
    }

    @Test func inverseMustPointBack() {
        #expect(
            throws: ModelError.inverseMismatch(
                entity: "A", relationship: "b", inverse: "a",
                detail: "on B names other as its inverse, not b")
        ) {
            try ObjectModel(entities: [
                EntityDescription(
                    name: "A",
                    relationships: [
                        .init(name: "b", destination: "B", inverse: "a"),
                        .init(name: "other", destination: "B", inverse: "a"),
                    ]),
                EntityDescription(name: "B", relationships: [.init(name: "a", destination: "A", inverse: "other")]),
            ])
        }
        #expect(
            throws: ModelError.inverseMismatch(
                entity: "A", relationship: "b", inverse: "c",
                detail: "on B points to C, not A")
        ) {
            try ObjectModel(entities: [
                EntityDescription(name: "A", relationships: [.init(name: "b", destination: "B", inverse: "c")]),
                EntityDescription(name: "B", relationships: [.init(name: "c", destination: "C", inverse: "b")]),
                EntityDescription(name: "C"),
            ])
        }
    }

    @Test func missingInverseAndDestinationAreNamed() {
        #expect(
            throws: ModelError.missingInverse(
                entity: "Employee", relationship: "department", destination: "Department", inverse: "staff")
        ) {
            try ObjectModel(entities: [
                EntityDescription(name: "Department"),
                EntityDescription(
                    name: "Employee",
                    relationships: [.init(name: "department", destination: "Department", inverse: "staff")]),
            ])
        }
        #expect(
            throws: ModelError.missingDestination(
                entity: "Employee", relationship: "department", destination: "Departmnt")
        ) {
            try ObjectModel(entities: [
                EntityDescription(
                    name: "Employee", relationships: [.init(name: "department", destination: "Departmnt")])
            ])
        }
    }

    @Test func duplicateNamesAreRejected() {
        #expect(throws: ModelError.duplicateEntity("A")) {
            try ObjectModel(entities: [EntityDescription(name: "A"), EntityDescription(name: "A")])
        }
        #expect(throws: ModelError.duplicateProperty(entity: "A", property: "x")) {
            try ObjectModel(entities: [
                EntityDescription(
                    name: "A", attributes: [.init(name: "x", type: .string)],
                    relationships: [.init(name: "x", destination: "A")])
            ])
        }
        // Redeclaring an inherited name is a duplicate too.
        #expect(throws: ModelError.duplicateProperty(entity: "Manager", property: "salary")) {
            var entities = companyEntities()
            entities[2].attributes.append(.init(name: "salary", type: .double))
            return try ObjectModel(entities: entities)
        }
        #expect(throws: ModelError.emptyName(entity: "")) { try ObjectModel(entities: [EntityDescription(name: "")]) }
        #expect(throws: ModelError.emptyName(entity: "A")) {
            try ObjectModel(entities: [EntityDescription(name: "A", attributes: [.init(name: "", type: .string)])])
        }
    }

    @Test func inheritanceProblemsAreRejected() {
        #expect(throws: ModelError.unknownParentEntity(entity: "A", parent: "Ghost")) {
            try ObjectModel(entities: [EntityDescription(name: "A", parent: "Ghost")])
        }
        #expect(throws: ModelError.inheritanceCycle(entity: "A", cycle: ["A", "B", "C", "A"])) {
            try ObjectModel(entities: [
                EntityDescription(name: "A", parent: "B"), EntityDescription(name: "B", parent: "C"),
                EntityDescription(name: "C", parent: "A"),
            ])
        }
        #expect(throws: ModelError.inheritanceCycle(entity: "S", cycle: ["S", "S"])) {
            try ObjectModel(entities: [EntityDescription(name: "S", parent: "S")])
        }
    }

    @Test func constraintsIndexesDefaultsAndRulesAreChecked() {
        #expect(throws: ModelError.invalidConstraint(entity: "A", property: "nope", detail: "no such property")) {
            try ObjectModel(entities: [EntityDescription(name: "A", uniquenessConstraints: [["nope"]])])
        }
        #expect(
            throws: ModelError.invalidConstraint(
                entity: "Department", property: "employees",
                detail: "to-many relationships cannot be constrained")
        ) {
            var entities = companyEntities()
            entities[0].uniquenessConstraints = [["employees"]]
            return try ObjectModel(entities: entities)
        }
        #expect(throws: ModelError.invalidFetchIndex(entity: "A", index: "i", property: "nope")) {
            try ObjectModel(entities: [
                EntityDescription(name: "A", fetchIndexes: [.init(name: "i", elements: [.ascending("nope")])])
            ])
        }
        #expect(
            throws: ModelError.invalidDefaultValue(
                entity: "A", attribute: "n", detail: "\"x\" is not a Integer 16 value")
        ) {
            try ObjectModel(entities: [
                EntityDescription(
                    name: "A", attributes: [.init(name: "n", type: .integer16, defaultValue: .string("x"))])
            ])
        }
        #expect(
            throws: ModelError.invalidDefaultValue(entity: "A", attribute: "n", detail: "40000 does not fit Integer 16")
        ) {
            try ObjectModel(entities: [
                EntityDescription(
                    name: "A", attributes: [.init(name: "n", type: .integer16, defaultValue: .integer(40000))])
            ])
        }
        #expect(
            throws: ModelError.invalidValidationRule(
                entity: "A", attribute: "s", detail: "regular expression ([ does not compile")
        ) {
            try ObjectModel(entities: [
                EntityDescription(
                    name: "A", attributes: [.init(name: "s", type: .string, validation: .init(pattern: "(["))])
            ])
        }
        #expect(
            throws: ModelError.invalidValidationRule(
                entity: "A", attribute: "d", detail: "bound 3 does not apply to Date")
        ) {
            try ObjectModel(entities: [
                EntityDescription(
                    name: "A", attributes: [.init(name: "d", type: .date, validation: .init(minValue: .integer(3)))])
            ])
        }
        #expect(
            throws: ModelError.invalidCountBounds(
                entity: "A", relationship: "r", detail: "maxCount 1 is below 1 or below minCount 2")
        ) {
            try ObjectModel(entities: [
                EntityDescription(name: "A", relationships: [.toMany("r", destination: "A", minCount: 2, maxCount: 1)])
            ])
        }
    }

    @Test func builtModelRoundTripsThroughCodable() throws {
        var entities = companyEntities()
        entities[1].attributes.append(
            .init(
                name: "hired", type: .date, defaultValue: .date(Date(timeIntervalSinceReferenceDate: 12.5)),
                validation: .init(minValue: .date(Date(timeIntervalSinceReferenceDate: 0)))))
        entities[1].attributes.append(.init(name: "photo", type: .binaryData, defaultValue: .data(Data([1, 2, 3]))))
        entities[1].attributes.append(
            .init(name: "rate", type: .decimal, defaultValue: .decimal(Decimal(string: "12.75")!)))
        entities[1].attributes.append(
            .init(
                name: "key", type: .uuid, defaultValue: .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!)
            ))
        entities[1].attributes.append(
            .init(name: "site", type: .uri, defaultValue: .uri(URL(string: "https://example.com")!)))
        entities[1].attributes.append(
            .init(name: "blob", type: .transformable(transformerName: "T"), renamingIdentifier: "oldBlob"))
        let model = try ObjectModel(entities: entities)
        let decoded = try JSONDecoder().decode(ObjectModel.self, from: JSONEncoder().encode(model))
        #expect(decoded == model)
        #expect(decoded.allSubentities(of: "Employee").map(\.name) == ["Manager"])
    }

    @Test func decodingReResolvesTheModel() throws {
        // An encoded model whose destination is missing must not decode into a broken model.
        let json =
            #"{"entities":[{"name":"A","className":"A","isAbstract":false,"attributes":[],"#
            + #""relationships":[{"name":"b","destination":"B","isToMany":false,"isOrdered":false,"deleteRule":1,"#
            + #""minCount":0,"isOptional":true,"isTransient":false,"userInfo":{}}],"#
            + #""uniquenessConstraints":[],"fetchIndexes":[],"userInfo":{}}]}"#
        #expect(throws: ModelError.missingDestination(entity: "A", relationship: "b", destination: "B")) {
            try JSONDecoder().decode(ObjectModel.self, from: Data(json.utf8))
        }
    }
}
