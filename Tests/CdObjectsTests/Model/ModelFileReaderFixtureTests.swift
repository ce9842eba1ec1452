import Foundation
import Testing
@testable import CdObjects

/// Hand-counted facts of one fixture (from reading its `contents`): entities, declared
/// attributes (transient included), relationships, uniqueness constraints, fetch indexes.
struct FixtureFacts: Sendable, CustomTestStringConvertible {
    var path: String
    var entities: Int
    var attributes: Int
    var relationships: Int
    var constraints: Int
    var fetchIndexes: Int
    var transient: Int
    var testDescription: String { path }
}

@Suite("Model fixtures", .enabled(if: ModelFixtures.shouldRun, ModelFixtures.skipReason))
struct ModelFileReaderFixtureTests {
    static let facts: [FixtureFacts] = [
        .init(
            path: "CadmiumTestModel.xcdatamodel", entities: 1, attributes: 2, relationships: 0, constraints: 0,
            fetchIndexes: 0, transient: 0),
        .init(
            path: "CadmiumBasicExample.xcdatamodel", entities: 2, attributes: 3, relationships: 2, constraints: 0,
            fetchIndexes: 0, transient: 0),
        .init(
            path: "CoreStoreTestModel.xcdatamodel", entities: 2, attributes: 16, relationships: 4, constraints: 0,
            fetchIndexes: 0, transient: 0),
        .init(
            path: "SyncPropertyMapperModel.xcdatamodel", entities: 12, attributes: 54, relationships: 12,
            constraints: 0, fetchIndexes: 0, transient: 0),
        // The bundle loads its current version, SampleModel.xcdatamodel.
        .init(
            path: "SampleModel.xcdatamodeld", entities: 4, attributes: 12, relationships: 2, constraints: 2,
            fetchIndexes: 0, transient: 2),
        .init(
            path: "SampleModel.xcdatamodeld/SampleModel2.xcdatamodel", entities: 4, attributes: 8, relationships: 2,
            constraints: 2, fetchIndexes: 1, transient: 0),
        .init(
            path: "SampleModel.xcdatamodeld/SampleModel3.xcdatamodel", entities: 5, attributes: 8, relationships: 6,
            constraints: 3, fetchIndexes: 0, transient: 0),
    ]

    @Test("every fixture loads with all its parts and no warnings", arguments: facts)
    func fixtureLoadsCompletely(_ facts: FixtureFacts) throws {
        guard let file = try ModelFixtures.load(facts.path) else { return }
        let entities = file.model.entities
        #expect(entities.count == facts.entities)
        #expect(entities.map(\.attributes.count).reduce(0, +) == facts.attributes)
        #expect(entities.map(\.relationships.count).reduce(0, +) == facts.relationships)
        #expect(entities.map(\.uniquenessConstraints.count).reduce(0, +) == facts.constraints)
        #expect(entities.map(\.fetchIndexes.count).reduce(0, +) == facts.fetchIndexes)
        #expect(entities.flatMap(\.attributes).filter(\.isTransient).count == facts.transient)
        #expect(file.warnings == [], "\(file.warnings)")
    }

    @Test func cadmiumTestModelHasRequiredIdWithDefault() throws {
        guard let model = try ModelFixtures.load("CadmiumTestModel.xcdatamodel")?.model else { return }
        let item = try #require(model["TestItem"])
        #expect(item.className == "CadmiumTests.TestItem")
        #expect(item.attributes.map(\.name) == ["id", "name"])
        #expect(item.attributes[0].type == .integer64)
        #expect(item.attributes[0].isOptional == false)
        #expect(item.attributes[0].defaultValue == .integer(0))
        #expect(item.attributes[1].type == .string)
        #expect(item.attributes[1].isOptional == false)
        #expect(item.attributes[1].defaultValue == nil)
    }

    @Test func cadmiumBasicExampleHasOneToOneInverses() throws {
        guard let model = try ModelFixtures.load("CadmiumBasicExample.xcdatamodel")?.model else { return }
        let myOther = try #require(model.relationship("myOther", of: "ExampleItem"))
        #expect(myOther.destination == "OtherItem")
        #expect(myOther.inverse == "myExample")
        #expect(myOther.isToMany == false && myOther.isOptional && myOther.deleteRule == .nullify)
        #expect(model.inverse(of: "myOther", in: "ExampleItem")?.name == "myExample")
        #expect(model.inverse(of: "myExample", in: "OtherItem")?.name == "myOther")
        #expect(model.attribute("numberTaps", of: "ExampleItem")?.type == .integer32)
        #expect(model["ExampleItem"]?.className == ".ExampleItem")
    }

    @Test func coreStoreModelHasTypesOrderingAndConfigurations() throws {
        guard let file = try ModelFixtures.load("CoreStoreTestModel.xcdatamodel") else { return }
        let model = file.model
        let e1 = try #require(model["TestEntity1AAA"])
        #expect(e1.className == ".TestEntity1")
        let types = Dictionary(uniqueKeysWithValues: e1.attributes.map { ($0.name, $0.type) })
        #expect(
            types == [
                "testBoolean": .boolean, "testData": .binaryData, "testDate": .date, "testDecimal": .decimal,
                "testEntityID": .integer64, "testNil": .string, "testNumber": .integer32, "testString": .string,
            ])
        #expect(e1.attributes.allSatisfy { $0.isOptional })
        #expect(model.relationship("testToManyOrdered", of: "TestEntity2")?.isOrdered == true)
        #expect(model.relationship("testToManyUnordered", of: "TestEntity1AAA")?.isOrdered == false)
        #expect(model.relationship("testToManyUnordered", of: "TestEntity1AAA")?.destination == "TestEntity1AAA")
        #expect(model.isManyToMany("testToManyOrdered", in: "TestEntity2") == false)
        #expect(file.configurations == ["Config1": ["TestEntity1AAA"], "Config2": ["TestEntity2"]])
    }

    @Test func syncModelHasEveryTypeUserInfoAndCascades() throws {
        guard let model = try ModelFixtures.load("SyncPropertyMapperModel.xcdatamodel")?.model else { return }
        #expect(
            model.entityNames == [
                "Apartment", "Attribute", "Building", "Company", "Compatibility", "KeyPath",
                "Market", "Note", "Park", "Recursive", "Room", "User",
            ])
        #expect(model.attribute("uri", of: "Attribute")?.type == .uri)
        #expect(model.attribute("uuid", of: "Attribute")?.type == .uuid)
        #expect(model.attribute("transformable", of: "Attribute")?.type == .transformable(transformerName: nil))
        #expect(
            model.attribute("registeredTransformable", of: "User")?.type
                == .transformable(transformerName: "DateStringTransformer"))
        #expect(model.attribute("integer16", of: "Attribute")?.type == .integer16)
        #expect(model.attribute("floatValue", of: "Attribute")?.type == .float)
        #expect(model.attribute("doubleValue", of: "Attribute")?.defaultValue == .double(0))
        #expect(model.attribute("decimal", of: "Attribute")?.defaultValue == .decimal(0))
        #expect(
            model.attribute("uniqueId", of: "Market")?.userInfo == ["sync.isPrimaryKey": "YES", "sync.remoteKey": "id"])
        #expect(
            model.attribute("camelCaseDepthTwo", of: "KeyPath")?.userInfo["sync.remoteKey"]
                == "camelParent.depthOne.depthTwo")
        #expect(model.relationship("apartments", of: "Building")?.deleteRule == .cascade)
        #expect(model.relationship("rooms", of: "Apartment")?.deleteRule == .cascade)
        #expect(model.relationship("building", of: "Apartment")?.deleteRule == .nullify)
        let recursives = try #require(model.relationship("recursives", of: "Recursive"))
        #expect(recursives.destination == "Recursive" && recursives.isToMany && recursives.inverse == "recursive")
        #expect(model["Compatibility"]?.className == "NSManagedObject")  // representedClassName=""
    }

    @Test func sampleBundlePicksCurrentVersionWithInheritanceAndConstraints() throws {
        guard let file = try ModelFixtures.load("SampleModel.xcdatamodeld") else { return }
        #expect(file.versionName == "SampleModel.xcdatamodel")
        #expect(
            file.availableVersions == [
                "SampleModel.xcdatamodel", "SampleModel2.xcdatamodel", "SampleModel3.xcdatamodel",
            ])
        #expect(file.versionIdentifier == "1")
        let model = file.model
        #expect(model["SportCar"]?.parent == "Car")
        #expect(model["ExpensiveSportCar"]?.parent == "SportCar")
        #expect(model.allSubentities(of: "Car").map(\.name) == ["SportCar", "ExpensiveSportCar"])
        #expect(model.ancestors(of: "ExpensiveSportCar").map(\.name) == ["SportCar", "Car"])
        #expect(
            model.allAttributes(of: "ExpensiveSportCar").map(\.name)
                == [
                    "color", "currentDrivingSpeed", "maker", "markedForDeletionAsOf", "model", "numberPlate",
                    "isLimitedEdition",
                ])
        #expect(model.allRelationships(of: "SportCar").map(\.name) == ["owner"])
        #expect(model.allUniquenessConstraints(of: "SportCar") == [["numberPlate"]])
        #expect(model["Person"]?.uniquenessConstraints == [["firstName", "lastName"]])
        #expect(model.attribute("currentDrivingSpeed", of: "Car")?.isTransient == true)
        #expect(model.attribute("isDriving", of: "Person")?.defaultValue == .bool(false))
        #expect(model.attribute("color", of: "Car")?.type == .transformable(transformerName: "ColorTransformer"))
        #expect(model.attribute("id", of: "Person")?.type == .uuid)
    }

    @Test func sampleVersion2HasFetchIndexAndRenamedEntity() throws {
        guard let model = try ModelFixtures.load("SampleModel.xcdatamodeld", version: "SampleModel2")?.model else {
            return
        }
        let car = try #require(model["Car"])
        #expect(
            car.fetchIndexes == [
                FetchIndexDescription(
                    name: "byMakerAndNumberPlate",
                    elements: [.ascending("maker"), .ascending("numberPlate")])
            ])
        #expect(model["LuxuryCar"]?.renamingIdentifier == "ExpensiveSportCar")
        #expect(model["ExpensiveSportCar"] == nil)
    }

    @Test func sampleVersion3HasManyToMany() throws {
        guard let model = try ModelFixtures.load("SampleModel.xcdatamodeld/SampleModel3.xcdatamodel")?.model else {
            return
        }
        #expect(model.isManyToMany("previousOwners", in: "Car"))
        #expect(model.isManyToMany("previousCars", in: "Person"))
        #expect(model.isManyToMany("owner", in: "Car") == false)
        #expect(model.inverse(of: "createdBy", in: "Car")?.name == "cars")
        #expect(model.relationship("owner", of: "LuxuryCar")?.destination == "Person")
        #expect(model.entityNames.count == 5)
    }

    @Test("every fixture survives a Codable round trip", arguments: facts)
    func fixtureRoundTripsThroughCodable(_ facts: FixtureFacts) throws {
        guard let model = try ModelFixtures.load(facts.path)?.model else { return }
        let json = try JSONDecoder().decode(ObjectModel.self, from: JSONEncoder().encode(model))
        #expect(json == model)
        #expect(json.versionHash == model.versionHash)
        let plist = try PropertyListDecoder().decode(ObjectModel.self, from: PropertyListEncoder().encode(model))
        #expect(plist == model)
    }
}
