// The value-type example of docs/VALUES.md, verbatim (declared locally in a function, so that its
// type names do not clash with the test module's classes; `ann` and `url` defined around it; the
// last two lines, which need a transaction and a `shop`, inside one), proving that it compiles
// and behaves as its comments say. The formatter leaves the function alone to keep it verbatim.

import Foundation
import Testing
import Cadmium

extension CadmiumSuites {
    @Suite struct ValueExampleTests {
        @Test func exampleBehavesAsItsCommentsSay() throws {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("values-\(UUID()).cdstore")
            defer {
                try? FileManager.default.removeItem(at: url)
                try? FileManager.default.removeItem(atPath: url.path + "-wal")
            }
            try runValueExample(url: url)
        }
    }
}

// swift-format-ignore
func runValueExample(url: URL) throws {
    // MARK: The example's declarations (verbatim)
    enum CarType: String, Codable { case pickup, sedan, hatchback }   // RawRepresentable: stored as its raw value

    struct Employee: CdManagedPersistentStruct {
        static let entityName = "Employee"      // optional: defaults to the type's name
        var objectID: ObjectID?                 // set by save and by fetches; nil for a new value
        var name: String
        var age: Int16
        var position: String?
        var type: CarType
    }

    struct Shop: CdManagedPersistentStruct {
        var objectID: ObjectID?
        var name: String
        var opened: Date?
        var employees: [Employee]               // a to-many relationship (ordered when the model says so)
        var owner: Employee?                    // a to-one relationship
    }

    struct Author: CdManagedUniqueStruct {     // identity by an attribute instead of ObjectID
        static let identifierName = "id"
        var id: String
        var name: String
    }

    let ann = Employee(objectID: nil, name: "Ann", age: 41, position: "Manager", type: .sedan)

    // MARK: The example's code (verbatim)
    let model = try CdModel(classes: [], values: [Shop.self, Employee.self, Author.self])   // derived from the structs
    try Cd.initWithStore(model: model, storeURL: url, serialTX: false)

    try Cd.transactAndWait {
        var shop = Shop(objectID: nil, name: "Household Wares", opened: nil, employees: [ann], owner: nil)
        try shop.save()                          // inserts shop and its employees; sets objectIDs
        shop.name = "Hardware"
        try shop.save()                          // updates the same object
        try Author(id: "a1", name: "Ann").save() // upsert: a second save with id "a1" updates, never duplicates
    }
    let shops: [Shop] = try Cd.values(Shop.self).filter("name BEGINSWITH %@", "H").sorted("name").fetch()
    let one = try Cd.values(Author.self).filter("id == %@", "a1").fetchOne()
    try Cd.transactAndWait { try shops[0].delete() }          // delete rules of the model apply
    // (The last two lines, inside a transaction with a `shop` of their own.)
    let (objectID, value) = try Cd.transactAndWait { () throws -> (ObjectID?, Shop) in
        let opened = Date(timeIntervalSince1970: 0)
        let shop = Shop(objectID: nil, name: "Toys", opened: opened, employees: [ann], owner: ann)
        let object = try shop.toObject()                           // boxing, inside a transaction
        let value = try Shop(object: object)                       // unboxing, anywhere an object is readable
        return (object.objectID, value)
    }

    // MARK: What the comments say
    #expect(model.objectModel.entity(named: "Employee")?.attribute(named: "type")?.type == .string)
    #expect(model.objectModel.relationship("employees", of: "Shop")?.isOrdered == true)
    #expect(model.objectModel.entity(named: "Author")?.uniquenessConstraints == [["id"]])
    #expect(shops.count == 1)
    #expect(shops.first?.name == "Hardware")
    #expect(shops.first?.objectID != nil)
    #expect(shops.first?.employees.map(\.name) == ["Ann"])
    #expect(shops.first?.employees.first?.objectID != nil)
    #expect(shops.first?.employees.first?.type == .sedan)
    #expect(one?.name == "Ann")
    try Cd.transactAndWait { try Author(id: "a1", name: "Ann B.").save() }
    #expect(try Cd.values(Author.self).fetch().map(\.name) == ["Ann B."])
    #expect(try Cd.values(Shop.self).filter("name == %@", "Hardware").count() == 0)
    // Nullify: the deleted shop's employee stays; the boxed shop holds `ann`, a new value, twice (as
    // employee and as owner): two more objects.
    #expect(try Cd.values(Employee.self).filter("name == %@", "Ann").count() == 3)
    #expect(objectID != nil && value.objectID == objectID)
    #expect(value.name == "Toys" && value.opened == Date(timeIntervalSince1970: 0))
    #expect(value.employees.map(\.name) == ["Ann"] && value.owner?.name == "Ann")
    #expect(value.owner?.objectID != nil && value.owner?.objectID != value.employees.first?.objectID)
    // The store file has them after reopening.
    try Cd.initWithStore(model: model, storeURL: url, serialTX: false)
    #expect(try Cd.values(Shop.self).fetch().map(\.name) == ["Toys"])
}
