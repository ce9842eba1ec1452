// Loads Fixtures/predicates/: the data set as in-memory objects that adopt `PredicateEvaluable`,
// and the cases with their typed arguments. See Fixtures/predicates/make_cases.py for the format.

import Foundation
import Testing
@testable import CdObjects

enum PredicateFixture {
    /// The repository's Fixtures/predicates directory, found from this file's path.
    static let directory: URL = {
        var url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while url.path != "/" {
            let candidate = url.appendingPathComponent("Fixtures/predicates")
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
            url.deleteLastPathComponent()
        }
        fatalError("Fixtures/predicates not found above \(#filePath)")
    }()

    static func cases() throws -> [PredicateCase] {
        let data = try Data(contentsOf: directory.appendingPathComponent("cases.json"))
        return try JSONDecoder().decode([PredicateCase].self, from: data)
    }

    static func dataset() throws -> FixtureDataset {
        let data = try Data(contentsOf: directory.appendingPathComponent("dataset.json"))
        return FixtureDataset(try JSONDecoder().decode(FixtureDataset.Rows.self, from: data))
    }

    /// A UTC calendar date "yyyy-MM-dd".
    static func date(_ text: String) -> Date {
        let parts = text.split(separator: "-").compactMap { Int($0) }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2]))!
    }
}

/// One fixture case.
struct PredicateCase: Decodable, Sendable, CustomTestStringConvertible {
    let id: String
    let entity: String
    let format: String
    let args: [FixtureArgument]
    let variables: [String: FixtureArgument]?
    let expect: [Int]?
    let error: String?
    let offset: Int?

    var testDescription: String { "\(id): \(format)" }
}

/// A typed JSON argument: `{"int": 5}`, `{"array": [...]}`, `{"person": 3}`, …
indirect enum FixtureArgument: Decodable, Sendable {
    case int(Int), double(Double), string(String), bool(Bool), date(String), uuid(String)
    case decimal(String), url(String), data(String), null, nsnull, unsupported
    case array([FixtureArgument]), set([FixtureArgument]), person(Int), department(Int)

    private struct Key: CodingKey {
        var stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        guard let key = c.allKeys.first, c.allKeys.count == 1 else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "one key expected"))
        }
        switch key.stringValue {
        case "int": self = .int(try c.decode(Int.self, forKey: key))
        case "double": self = .double(try c.decode(Double.self, forKey: key))
        case "string": self = .string(try c.decode(String.self, forKey: key))
        case "bool": self = .bool(try c.decode(Bool.self, forKey: key))
        case "date": self = .date(try c.decode(String.self, forKey: key))
        case "uuid": self = .uuid(try c.decode(String.self, forKey: key))
        case "decimal": self = .decimal(try c.decode(String.self, forKey: key))
        case "url": self = .url(try c.decode(String.self, forKey: key))
        case "data": self = .data(try c.decode(String.self, forKey: key))
        case "null": self = .null
        case "nsnull": self = .nsnull
        case "unsupported": self = .unsupported
        case "array": self = .array(try c.decode([FixtureArgument].self, forKey: key))
        case "set": self = .set(try c.decode([FixtureArgument].self, forKey: key))
        case "person": self = .person(try c.decode(Int.self, forKey: key))
        case "department": self = .department(try c.decode(Int.self, forKey: key))
        default:
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "unknown argument type \(key.stringValue)"))
        }
    }

    /// A value of a type predicates do not accept.
    struct Opaque {}

    /// The Swift value this argument stands for.
    func value(in dataset: FixtureDataset) -> Any {
        switch self {
        case let .int(v): return v
        case let .double(v): return v
        case let .string(v): return v
        case let .bool(v): return v
        case let .date(v): return PredicateFixture.date(v)
        case let .uuid(v): return UUID(uuidString: v)!
        case let .decimal(v): return Decimal(string: v)!
        case let .url(v): return URL(string: v)!
        case let .data(v): return Data(base64Encoded: v)!
        case .null: return Optional<String>.none as Any
        case .nsnull: return NSNull()
        case .unsupported: return Opaque()
        case let .array(elements): return elements.map { $0.value(in: dataset) }
        case let .set(elements): return Set(elements.map { $0.value(in: dataset) as! AnyHashable })
        case let .person(id): return dataset.people[id]!
        case let .department(id): return dataset.departments[id]!
        }
    }
}

/// An in-memory record: attributes, to-one and to-many relationships by key.
final class FixtureObject: PredicateEvaluable {
    let entity: String
    let id: Int
    var attributes: [String: CdValue] = [:]
    var toOne: [String: FixtureObject?] = [:]
    var toMany: [String: [FixtureObject]] = [:]

    init(entity: String, id: Int) {
        self.entity = entity
        self.id = id
    }

    var predicateIdentity: AnyHashable { "\(entity)/\(id)" }

    func predicateValue(forKey key: String) throws -> PredicateValue {
        if let value = attributes[key] { return .value(value) }
        if let object = toOne[key] { return .object(object) }
        if let objects = toMany[key] { return .collection(objects.map { .object($0) }) }
        throw CdPredicateError(.unknownKey, "\(entity) has no key '\(key)'")
    }
}

/// People and departments of dataset.json, linked.
struct FixtureDataset {
    struct Rows: Decodable {
        struct Person: Decodable {
            let id: Int, name: String, age: Int, salary: Double, birthday: String
            let nickname: String?, email: String, active: Bool, uuid: String
            let department: Int?, friends: [Int]
        }
        struct Department: Decodable {
            let id: Int, name: String, budget: Int, rating: String
        }
        let people: [Person]
        let departments: [Department]
    }

    let people: [Int: FixtureObject]
    let departments: [Int: FixtureObject]

    init(_ rows: Rows) {
        var departments: [Int: FixtureObject] = [:]
        for row in rows.departments {
            let d = FixtureObject(entity: "Department", id: row.id)
            d.attributes = [
                "id": .integer(Int64(row.id)), "name": .string(row.name),
                "budget": .integer(Int64(row.budget)), "rating": .decimal(Decimal(string: row.rating)!),
            ]
            d.toMany["employees"] = []
            departments[row.id] = d
        }
        var people: [Int: FixtureObject] = [:]
        for row in rows.people {
            let p = FixtureObject(entity: "Person", id: row.id)
            p.attributes = [
                "id": .integer(Int64(row.id)), "name": .string(row.name), "age": .integer(Int64(row.age)),
                "salary": .double(row.salary), "birthday": .date(PredicateFixture.date(row.birthday)),
                "nickname": row.nickname.map(CdValue.string) ?? .null, "email": .string(row.email),
                "active": .bool(row.active), "uuid": .uuid(UUID(uuidString: row.uuid)!),
            ]
            people[row.id] = p
        }
        for row in rows.people {
            let p = people[row.id]!
            let department = row.department.map { departments[$0]! }
            p.toOne["department"] = .some(department)
            department?.toMany["employees", default: []].append(p)
            p.toMany["friends"] = row.friends.map { people[$0]! }
        }
        self.people = people
        self.departments = departments
    }

    func objects(of entity: String) -> [FixtureObject] {
        let all = entity == "Person" ? people : departments
        return all.keys.sorted().map { all[$0]! }
    }
}
