// The value types of the value fixtures (Fixtures/values/), after CoreValue's own test types:
// Employee, Shop (its StoredShop), Company, Other (every attribute type), Car (enums), and the
// unique Author, Article and Category. Fixture steps name a type by its entity name.

import Foundation
import Testing
@testable import Cadmium

/// The fixtures' value types, in a namespace of their own (the test module has classes of some
/// of these names).
enum VF {
    enum CarType: String, Codable, Sendable { case pickup, sedan, hatchback }
    enum Level: Int16, Codable, Sendable { case junior = 1, senior = 2, chief = 3 }

    struct Employee: CdManagedPersistentStruct, Sendable, Equatable {
        var objectID: ObjectID?
        var name: String
        var age: Int16
        var position: String?
        var department: String
        var job: String
    }

    struct Shop: CdManagedPersistentStruct, Sendable, Equatable {
        var objectID: ObjectID?
        var name: String
        var owner: Employee?
        var employees: [Employee]
    }

    struct Company: CdManagedStruct, Sendable, Equatable {
        var name: String
        var employees: [Employee]
    }

    struct Dimensions: Codable, Sendable, Equatable {
        var width: Double
        var height: Double
    }

    struct Other: CdManagedPersistentStruct, Sendable, Equatable {
        var objectID: ObjectID?
        var boolean: Bool
        var data: Data
        var date: Date
        var decimal: Decimal
        var double: Double
        var float: Float
        var int16: Int16
        var int32: Int32
        var int64: Int64
        var int: Int
        var string: String
        var uuid: UUID
        var url: URL
        var level: Level
        var size: Dimensions?
        var tags: [String]
    }

    struct Car: CdManagedPersistentStruct, Sendable, Equatable {
        var objectID: ObjectID?
        var name: String
        var type: CarType
        var previous: CarType?
    }

    struct Author: CdManagedUniqueStruct, Sendable, Equatable {
        static let identifierName = "id"
        var id: String
        var name: String
    }

    struct Article: CdManagedUniqueStruct, Sendable, Equatable {
        static let identifierName = "id"
        var id: Int16
        var text: String
        var author: Author?
    }

    struct Category: CdManagedUniqueStruct, Sendable, Equatable {
        static let identifierName = "id"
        var id: String
        var type: String
        var label: String
        var articles: [Article]
    }

    /// Every fixture type by entity name.
    static var types: [String: any CdManagedStruct.Type] {
        [
            "Employee": Employee.self, "Shop": Shop.self, "Company": Company.self, "Other": Other.self,
            "Car": Car.self, "Author": Author.self, "Article": Article.self, "Category": Category.self,
        ]
    }
}

/// Where the values' model comes from.
enum ValueModelSource: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case derived, file
    var testDescription: String {
        self == .derived ? "model derived from the structs" : "model read from ValuesModel.xcdatamodel"
    }

    func model() throws -> CdModel {
        switch self {
        case .derived:
            return try CdModel(classes: [], values: Array(VF.types.values))
        case .file:
            return try CdModel(
                contentsOf: valueFixturesDirectory().appendingPathComponent("ValuesModel.xcdatamodel"), classes: [])
        }
    }

    /// A fresh in-memory store with this model.
    func open() throws {
        try Cd.initWithStore(model: model(), storeURL: nil, serialTX: false)
        Cd.misuseHandler = { misuse in Issue.record("unexpected misuse: \(misuse)") }
    }
}

/// The repository's Fixtures/values directory, found from this file's path.
func valueFixturesDirectory(_ file: String = #filePath) -> URL {
    var url = URL(fileURLWithPath: file)
    while url.path != "/" {
        url.deleteLastPathComponent()
        let candidate = url.appendingPathComponent("Fixtures/values")
        if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
    }
    return URL(fileURLWithPath: "Fixtures/values")
}
