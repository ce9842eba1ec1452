// The predicate fixture data set (Fixtures/predicates/dataset.json) as Cadmium entity classes,
// loaded into a fresh in-memory store, and the fixture cases (cases.json) by id: what the
// three-forms tests (ThreeFormsFixtureTests.swift) compare the typed and `#Predicate` forms with.

import Foundation
import Testing
@testable import Cadmium

/// The fixture's Person entity.
final class FxPerson: CdManagedObject {
    override class var entityName: String { "Person" }
    @Attribute var id: Int64 = 0
    @Attribute(.indexed) var name: String
    @Attribute(.indexed) var age: Int16 = 0
    @Attribute var salary: Double = 0
    @Attribute var birthday: Date?
    @Attribute var nickname: String?
    @Attribute var email: String
    @Attribute var active: Bool = false
    @Attribute var uuid: UUID?
    @Relationship(inverse: "employees") var department: FxDepartment?
    @Relationship var friends: Set<FxPerson>
}

/// The fixture's Department entity.
final class FxDepartment: CdManagedObject {
    override class var entityName: String { "Department" }
    @Attribute var id: Int64 = 0
    @Attribute var name: String
    @Attribute(.indexed) var budget: Int64 = 0
    @Attribute var rating: Decimal = 0
    @Relationship(inverse: "department") var employees: Set<FxPerson>
}

/// The fixture files.
enum PredicateFixtureFiles {
    /// The repository's Fixtures/predicates directory, found from this file's path.
    static let directory: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            let candidate = url.appendingPathComponent("Fixtures/predicates")
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
        }
        return url
    }()

    /// One case of cases.json: its format, arguments (as JSON) and expected ids.
    struct Case: Decodable {
        let id: String
        let entity: String
        let format: String
        let args: [[String: JSONValue]]
        let expect: [Int64]?
    }

    /// The JSON values of cases.json arguments and dataset.json fields.
    enum JSONValue: Decodable {
        case int(Int64), double(Double), string(String), bool(Bool), null, other

        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if c.decodeNil() {
                self = .null
            } else if let b = try? c.decode(Bool.self) {
                self = .bool(b)
            } else if let i = try? c.decode(Int64.self) {
                self = .int(i)
            } else if let d = try? c.decode(Double.self) {
                self = .double(d)
            } else if let s = try? c.decode(String.self) {
                self = .string(s)
            } else {
                self = .other
            }
        }
    }

    /// The cases by id.
    static let cases: [String: Case] = {
        guard let data = try? Data(contentsOf: directory.appendingPathComponent("cases.json")),
            let list = try? JSONDecoder().decode([Case].self, from: data)
        else { return [:] }
        return Dictionary(list.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
    }()

    /// A case's arguments as `filter(_:_:)` takes them (ints, doubles, strings, bools, dates).
    static func arguments(_ c: Case) -> [Any] {
        c.args.compactMap { arg -> Any? in
            guard let (kind, value) = arg.first else { return nil }
            switch (kind, value) {
            case let ("int", .int(v)): return v
            case let ("double", .double(v)): return v
            case let ("double", .int(v)): return Double(v)
            case let ("string", .string(v)): return v
            case let ("bool", .bool(v)): return v
            case let ("date", .string(v)): return day(v)
            case let ("uuid", .string(v)): return UUID(uuidString: v)
            default: return nil
            }
        }
    }

    /// A UTC calendar date "yyyy-MM-dd".
    static func day(_ text: String) -> Date {
        let parts = text.split(separator: "-").compactMap { Int($0) }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2]))!
    }

    struct Dataset: Decodable {
        let people: [[String: JSONValue]]
        let departments: [[String: JSONValue]]
    }

    /// Fresh in-memory store holding the data set.
    static func load() throws {
        let model = try CdModel(classes: [FxPerson.self, FxDepartment.self])
        try Cd.initWithStore(model: model, storeURL: nil)
        Cd.misuseHandler = { misuse in Issue.record("unexpected misuse: \(misuse)") }
        let data = try Data(contentsOf: directory.appendingPathComponent("dataset.json"))
        let dataset = Unchecked(try JSONDecoder().decode(Dataset.self, from: data))
        let friendLists = try Data(contentsOf: directory.appendingPathComponent("dataset.json"))
        let friends = try friendsByPerson(friendLists)
        try background {
            try Cd.transactAndWait {
                var departments: [Int64: FxDepartment] = [:]
                for fields in dataset.value.departments {
                    let d = try Cd.create(FxDepartment.self)
                    if case let .int(id)? = fields["id"] { d.id = id }
                    if case let .string(name)? = fields["name"] { d.name = name }
                    if case let .int(budget)? = fields["budget"] { d.budget = budget }
                    if case let .string(rating)? = fields["rating"] { d.rating = Decimal(string: rating) ?? 0 }
                    departments[d.id] = d
                }
                var people: [Int64: FxPerson] = [:]
                for fields in dataset.value.people {
                    let p = try Cd.create(FxPerson.self)
                    if case let .int(id)? = fields["id"] { p.id = id }
                    if case let .string(v)? = fields["name"] { p.name = v }
                    if case let .int(v)? = fields["age"] { p.age = Int16(v) }
                    if case let .double(v)? = fields["salary"] { p.salary = v }
                    if case let .int(v)? = fields["salary"] { p.salary = Double(v) }
                    if case let .string(v)? = fields["birthday"] { p.birthday = day(v) }
                    if case let .string(v)? = fields["nickname"] { p.nickname = v }
                    if case let .string(v)? = fields["email"] { p.email = v }
                    if case let .bool(v)? = fields["active"] { p.active = v }
                    if case let .string(v)? = fields["uuid"] { p.uuid = UUID(uuidString: v) }
                    if case let .int(v)? = fields["department"] { p.department = departments[v] }
                    people[p.id] = p
                }
                for (id, list) in friends { people[id]?.friends = Set(list.compactMap { people[$0] }) }
            }
        }
    }

    /// Person id → friend ids, read from dataset.json.
    private static func friendsByPerson(_ data: Data) throws -> [Int64: [Int64]] {
        struct Person: Decodable {
            let id: Int64
            let friends: [Int64]
        }
        struct People: Decodable { let people: [Person] }
        let people = try JSONDecoder().decode(People.self, from: data).people
        return Dictionary(people.map { ($0.id, $0.friends) }, uniquingKeysWith: { a, _ in a })
    }
}
