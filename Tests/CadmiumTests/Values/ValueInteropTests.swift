// Values beside managed objects: a struct mapped onto a class's entity, both used in one
// transaction; values seeing a transaction's pending changes as objects do; Transformable
// attributes through a named transformer an app registers; ObjectID as Codable data.

import Foundation
import Testing
import CdObjects
@testable import Cadmium

/// The class of entity Car, onto which `VF.Car` maps.
final class CarObject: CdManagedObject {
    override class var entityName: String { "Car" }
    @Attribute var name: String
    @Attribute var type: String
    @Attribute var previous: String?
}

/// A property-list transformer, registered as "Plist".
struct PlistTransformer: CdValueTransformer {
    func data(from value: any Encodable) throws -> Data {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .xml
        return try encoder.encode(PlistBox(value: value))
    }
    func value<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try PropertyListDecoder().decode([T].self, from: data)[0]
    }
    /// A top level a property list accepts for any value: a one-element array.
    private struct PlistBox: Encodable {
        let value: any Encodable
        func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            try container.encode(value)
        }
    }
}

/// A value with a Transformable attribute of a named transformer.
struct Sketch: CdManagedPersistentStruct, Sendable {
    var objectID: ObjectID?
    var title: String
    var points: [Double]
}

extension CadmiumSuites {
    @Suite struct ValueInteropTests {
        @Test func valuesAndObjectsOfOneEntityInOneTransaction() throws {
            let model = try CdModel(classes: [CarObject.self], values: [VF.Car.self])
            #expect(model.objectModel.entityNames == ["Car"], "the class's entity serves the struct")
            try Cd.initWithStore(model: model, storeURL: nil, serialTX: false)
            Cd.misuseHandler = { misuse in Issue.record("unexpected misuse: \(misuse)") }
            try background {
                try Cd.transactAndWait {
                    let object = try Cd.create(CarObject.self)
                    object.name = "Bus"
                    object.type = "sedan"
                    var van = VF.Car(name: "Van", type: .pickup)
                    try van.save()
                    // Each sees the other's pending changes.
                    let names = try Cd.objects(CarObject.self).sorted("name").fetch().map(\.name)
                    #expect(names == ["Bus", "Van"])
                    var bus = try #require(try Cd.values(VF.Car.self).filter("name == %@", "Bus").fetchOne())
                    #expect(bus.type == .sedan && bus.objectID == object.objectID)
                    // A value saved onto the object changes the object; the object's change shows in values.
                    bus.previous = .hatchback
                    try bus.save()
                    #expect(object.previous == "hatchback")
                    let vanObject = try #require(try Cd.objects(CarObject.self).filter("name == %@", "Van").fetchOne())
                    vanObject.type = "hatchback"
                    #expect(try VF.Car(object: vanObject).type == .hatchback)
                    van = try VF.Car(object: vanObject)
                    try van.delete()
                    #expect(try Cd.values(VF.Car.self).count() == 1)
                }
                #expect(try Cd.values(VF.Car.self).fetch().map(\.name) == ["Bus"])
            }
        }

        @MainActor @Test func unboxingAMainContextObjectOnTheMainThread() throws {
            try Cd.initWithStore(
                model: CdModel(classes: [CarObject.self], values: [VF.Car.self]), storeURL: nil, serialTX: false)
            Cd.misuseHandler = { misuse in Issue.record("unexpected misuse: \(misuse)") }
            try background {
                try Cd.transactAndWait {
                    var car = VF.Car(name: "Main", type: .sedan, previous: .pickup)
                    try car.save()
                }
            }
            let object = try #require(try Cd.objects(CarObject.self).fetchOne())
            let car = try VF.Car(object: object)
            #expect(car == VF.Car(objectID: object.objectID, name: "Main", type: .sedan, previous: .pickup))
        }

        @Test func namedTransformerStoresTransformableAttributes() throws {
            CdValueTransformers.register(PlistTransformer(), name: "Plist")
            let entity = EntityDescription(
                name: "Sketch",
                attributes: [
                    .init(name: "title", type: .string, isOptional: false),
                    .init(name: "points", type: .transformable(transformerName: "Plist"), isOptional: false),
                ])
            try Cd.initWithStore(
                model: CdModel(objectModel: ObjectModel(entities: [entity]), classes: []), storeURL: nil)
            Cd.misuseHandler = { misuse in Issue.record("unexpected misuse: \(misuse)") }
            try background {
                let bytes = try Cd.transactAndWait { () throws -> CdValue in
                    var sketch = Sketch(title: "s", points: [1.5, -2])
                    try sketch.save()
                    return try sketch.toObject().readAttribute("points")
                }
                guard case let .data(data) = bytes else {
                    Issue.record("a transformable attribute holds bytes, not \(bytes)")
                    return
                }
                #expect(String(decoding: data, as: UTF8.self).contains("<plist"))
                #expect(try Cd.values(Sketch.self).fetch().map(\.points) == [[1.5, -2]])
            }
            // An attribute naming a transformer nobody registered.
            let unknown = EntityDescription(
                name: "Sketch",
                attributes: [
                    .init(name: "title", type: .string),
                    .init(name: "points", type: .transformable(transformerName: "NoSuchTransformer")),
                ])
            try Cd.initWithStore(
                model: CdModel(objectModel: ObjectModel(entities: [unknown]), classes: []), storeURL: nil)
            try background {
                try Cd.throwing.transactAndWait {
                    expectValueError(.unknownTransformer, "Sketch", property: "points", entity: "Sketch") {
                        var sketch = Sketch(title: "s", points: [1])
                        try sketch.save()
                    }
                }
            }
        }

        @Test func valueRequestsAreValues() throws {
            try ValueModelSource.derived.open()
            try background {
                try Cd.transactAndWait {
                    for (name, age) in [("A", 30), ("B", 20), ("C", 40)] {
                        var employee = VF.Employee(name: name, age: Int16(age), department: "D", job: "J")
                        try employee.save()
                    }
                }
                let all = Cd.values(VF.Employee.self)
                let old = all.filter("age >= %@", 30)
                let sorted = old.sorted("age", ascending: false)
                #expect(try all.count() == 3, "chaining leaves the request it started from alone")
                #expect(try old.fetch().map(\.name).sorted() == ["A", "C"])
                #expect(try sorted.fetch().map(\.name) == ["C", "A"])
                #expect(try sorted.offset(1).fetch().map(\.name) == ["A"])
                #expect(
                    try all.filter("name == %@", "B").or("age > %@", 35).sorted("name").fetch().map(\.name) == [
                        "B", "C",
                    ])
                #expect(throws: (any Error).self) { try all.filter("name ==== %@", "B").fetch() }
            }
        }

        @Test func objectIDIsCodable() throws {
            let id = ObjectID(entity: "Employee", primaryKey: 42)
            let data = try JSONEncoder().encode(id)
            #expect(try JSONDecoder().decode(ObjectID.self, from: data) == id)
            #expect(try JSON(of: id) == .object(["entity": .string("Employee"), "primaryKey": .number(42)]))
        }
    }
}
