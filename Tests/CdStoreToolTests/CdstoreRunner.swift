// Runs the built `cdstore` (and the old `cdstore-verify`, `cdstore-migrate`) as subprocesses on
// stores the tests create with CdObjects and on the golden stores under Fixtures/. `swift test`
// builds every product, so the binaries sit next to the test bundle.

import CdFaultSupport
import CdObjects
import CdStore
import Foundation
import Testing

enum Cdstore {
    /// Runs `tool` with `arguments`; a death by signal is a test failure (bad input never traps).
    static func run(_ arguments: [String], tool: String = "cdstore") throws -> BuiltExecutable.Output {
        let output = try BuiltExecutable.run(try BuiltExecutable.locate(tool), arguments: arguments)
        #expect(!output.diedOfSignal, "\(tool) \(arguments) died of a signal")
        return output
    }

    static func withTempDir<R>(_ body: (URL) throws -> R) throws -> R {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cdstore-tool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        return try body(dir)
    }

    /// The package's root folder.
    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    /// A file under Fixtures/.
    static func fixture(_ relative: String) -> URL { packageRoot.appendingPathComponent("Fixtures/\(relative)") }

    /// Copies the fixture store (and its WAL, when there is one) into `dir`; returns the copy's path.
    static func copyFixtureStore(_ relative: String, to dir: URL) throws -> String {
        let source = fixture(relative)
        let destination = dir.appendingPathComponent(source.lastPathComponent)
        try FileManager.default.copyItem(at: source, to: destination)
        let wal = URL(fileURLWithPath: source.path + "-wal")
        if FileManager.default.fileExists(atPath: wal.path) {
            try FileManager.default.copyItem(at: wal, to: URL(fileURLWithPath: destination.path + "-wal"))
        }
        return destination.path
    }
}

/// The store the tests create: two departments and four employees, with an attribute of most
/// types, a fetch index, a to-one and its to-many inverse.
enum SampleStore {
    static let model: ObjectModel = {
        do {
            return try ObjectModel(entities: [
                EntityDescription(
                    name: "Department",
                    attributes: [
                        AttributeDescription(name: "name", type: .string, isOptional: false, isIndexed: true),
                        AttributeDescription(name: "budget", type: .decimal),
                    ],
                    relationships: [.toMany("employees", destination: "Employee", inverse: "department")]),
                EntityDescription(
                    name: "Employee",
                    attributes: [
                        AttributeDescription(name: "name", type: .string, isOptional: false),
                        AttributeDescription(name: "salary", type: .integer64),
                        AttributeDescription(name: "rating", type: .double),
                        AttributeDescription(name: "active", type: .boolean),
                        AttributeDescription(name: "hired", type: .date),
                        AttributeDescription(name: "photo", type: .binaryData),
                        AttributeDescription(name: "badge", type: .uuid),
                    ],
                    relationships: [
                        RelationshipDescription(name: "department", destination: "Department", inverse: "employees")
                    ],
                    fetchIndexes: [FetchIndexDescription(name: "bySalary", elements: [.descending("salary")])]),
            ])
        } catch {
            fatalError("the sample model is invalid: \(error)")
        }
    }()

    static let hired = Date(timeIntervalSince1970: 1_700_000_000.25)
    static let badge = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!

    /// Creates the store at `path` and closes it.
    static func create(at path: String) throws {
        let store = try ObjectStore.open(path: path, model: model)
        defer { try? store.close() }
        let departments = try store.newObjectIDs(entity: "Department", count: 2)
        let employees = try store.newObjectIDs(entity: "Employee", count: 4)
        var inserted: [ObjectID: [String: PropertyValue]] = [
            departments[0]: [
                "name": .attribute(.string("R&D")), "budget": .attribute(.decimal(Decimal(string: "1234567.89")!)),
            ],
            departments[1]: ["name": .attribute(.string("Sales, \"EMEA\""))],
        ]
        let people: [(String, Int64, Int)] = [
            ("Ada", 150_000, 0), ("Grace", 120_000, 0), ("Linus", 90_000, 1), ("Alan", 110_000, 1),
        ]
        for (i, (name, salary, department)) in people.enumerated() {
            inserted[employees[i]] = [
                "name": .attribute(.string(name)), "salary": .attribute(.integer(salary)),
                "rating": .attribute(i == 0 ? .double(4.5) : .null), "active": .attribute(.bool(i != 2)),
                "hired": .attribute(.date(hired)), "photo": .attribute(i == 0 ? .data(Data([1, 2, 3, 255])) : .null),
                "badge": .attribute(i == 0 ? .uuid(badge) : .null), "department": .toOne(departments[department]),
            ]
        }
        try store.apply(ChangeSet(inserted: inserted))
    }
}
