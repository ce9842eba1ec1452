// Loads Fixtures/values/scenarios.json: CoreValue's test scenarios as data. A scenario is a list
// of steps, run in order against a fresh store:
//
//   save       decode `value` as `type` and save it in a transaction (a plain struct: toObject);
//              `ref` keeps the saved value (objectIDs set) under a name
//   update     the value kept as `ref` with the fields of `set` replaced, the values at the paths
//              of `setIn` replaced (`employees.0.name`: a nested value's field) and the elements
//              of `removeAt` (field → index) removed from its arrays, saved again
//   delete     the value kept as `ref`, or `value` of a unique `type`, deleted in a transaction
//   roundtrip  box `value` in a transaction and unbox the object: equal to `value`; `object`
//              lists attribute values the object must hold, `related` relationship counts. The
//              transaction does not commit.
//   expect     `Cd.values(type)` with `filter`, `sorted` ("-key": descending), `limit`, `offset`:
//              its values (objectIDs left out) are `values`, in order when `sorted` is given;
//              its count is `count`. Run in a transaction, on the main thread and in Cd.read.

import Foundation
import Testing
@testable import Cadmium

/// A JSON value, to keep fixture values and compare results.
enum JSON: Codable, Sendable, Hashable, CustomStringConvertible {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSON])
    case object([String: JSON])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSON].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case let .bool(value): try container.encode(value)
        case let .number(value): try container.encode(value)
        case let .string(value): try container.encode(value)
        case let .array(value): try container.encode(value)
        case let .object(value): try container.encode(value)
        }
    }

    /// The JSON of any Encodable value.
    init(of value: some Encodable) throws {
        self = try JSONDecoder().decode(JSON.self, from: JSONEncoder().encode(value))
    }

    /// A value of `type` decoded from this JSON.
    func decoded<T: Decodable>(as type: T.Type) throws -> T {
        try JSONDecoder().decode(type, from: JSONEncoder().encode(self))
    }

    /// This JSON without `objectID` keys, at any depth.
    var withoutObjectIDs: JSON {
        switch self {
        case let .array(items): return .array(items.map(\.withoutObjectIDs))
        case let .object(fields):
            return .object(fields.filter { $0.key != "objectID" }.mapValues(\.withoutObjectIDs))
        default: return self
        }
    }

    /// Replaces the value at `path` (object keys and array indexes).
    mutating func set(_ value: JSON, at path: [String]) throws {
        guard let first = path.first else {
            self = value
            return
        }
        let rest = Array(path.dropFirst())
        switch self {
        case var .object(fields):
            var child = fields[first] ?? .null
            try child.set(value, at: rest)
            fields[first] = child
            self = .object(fields)
        case var .array(items):
            guard let index = Int(first), items.indices.contains(index) else {
                throw ScenarioError("no element \(first) in \(self)")
            }
            try items[index].set(value, at: rest)
            self = .array(items)
        default:
            throw ScenarioError("cannot follow \(first) in \(self)")
        }
    }

    /// Text with sorted keys, for messages and order-free comparison.
    var description: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(self)).flatMap { String(data: $0, encoding: .utf8) } ?? "?"
    }
}

/// One step of a scenario (see the file header).
struct ValueStep: Decodable, Sendable {
    var op: String
    var type: String?
    var value: JSON?
    var ref: String?
    var set: [String: JSON]?
    var setIn: [String: JSON]?
    var removeAt: [String: Int]?
    var filter: String?
    var sorted: [String]?
    var limit: Int?
    var offset: Int?
    var values: [JSON]?
    var count: Int?
    var object: [String: JSON]?
    var related: [String: Int]?
}

/// A scenario of Fixtures/values/scenarios.json.
struct ValueScenario: Decodable, Sendable, CustomTestStringConvertible {
    var name: String
    var steps: [ValueStep]
    var testDescription: String { name }

    static func all() throws -> [ValueScenario] {
        let data = try Data(contentsOf: valueFixturesDirectory().appendingPathComponent("scenarios.json"))
        return try JSONDecoder().decode([ValueScenario].self, from: data)
    }
}

/// Runs the steps of a scenario against the open store.
struct ValueScenarioRunner {
    /// Values kept by `ref`, with their type name.
    private(set) var kept: [String: (type: String, json: JSON)] = [:]

    mutating func run(_ step: ValueStep, _ location: SourceLocation) async throws {
        switch step.op {
        case "save":
            let (type, value) = try typed(step)
            let saved = try background { try saveValue(value.decoded(as: type)) }
            if let ref = step.ref { kept[ref] = (step.type!, saved) }
        case "update":
            let ref = try #require(step.ref)
            let (typeName, json) = try #require(kept[ref], "no value kept as \(ref)", sourceLocation: location)
            guard case var .object(fields) = json else { throw ScenarioError("value \(ref) is not an object") }
            for (key, value) in step.set ?? [:] { fields[key] = value }
            for (path, value) in step.setIn ?? [:] {
                var whole = JSON.object(fields)
                try whole.set(value, at: path.split(separator: ".").map(String.init))
                if case let .object(changed) = whole { fields = changed }
            }
            for (key, index) in step.removeAt ?? [:] {
                guard case var .array(items) = fields[key], items.indices.contains(index) else {
                    throw ScenarioError("\(ref).\(key) has no element \(index)")
                }
                items.remove(at: index)
                fields[key] = .array(items)
            }
            let type = try #require(VF.types[typeName])
            let changed = JSON.object(fields)
            let saved = try background { try saveValue(changed.decoded(as: type)) }
            kept[ref] = (typeName, saved)
        case "delete":
            let json: JSON
            let type: any CdManagedStruct.Type
            if let ref = step.ref, let value = kept[ref] {
                (type, json) = (try #require(VF.types[value.type]), value.json)
            } else {
                (type, json) = try typed(step)
            }
            try background { try deleteValue(json.decoded(as: type)) }
        case "roundtrip":
            let (type, value) = try typed(step)
            let (back, attributes, counts) = try background { () throws -> (JSON, [String: JSON], [String: Int]) in
                try Cd.transactAndWait { () throws -> (JSON, [String: JSON], [String: Int]) in
                    let object = try value.decoded(as: type).toObject()
                    var attributes: [String: JSON] = [:]
                    for key in step.object?.keys.sorted() ?? [] { attributes[key] = object.readAttribute(key).json }
                    var counts: [String: Int] = [:]
                    for key in step.related?.keys.sorted() ?? [] { counts[key] = object.readRelationship(key).count }
                    let back = try JSON(of: type.init(object: object))
                    try Cd.throwing.cancelImplicitCommit()
                    return (back, attributes, counts)
                }
            }
            #expect(back.withoutObjectIDs == value.withoutObjectIDs, "\(back)", sourceLocation: location)
            #expect(attributes == (step.object ?? [:]), sourceLocation: location)
            #expect(counts == (step.related ?? [:]), sourceLocation: location)
        case "expect":
            try await expect(step, location)
        default:
            throw ScenarioError("unknown op \(step.op)")
        }
    }

    private func typed(_ step: ValueStep) throws -> (any CdManagedStruct.Type, JSON) {
        guard let name = step.type, let type = VF.types[name], let value = step.value else {
            throw ScenarioError("step \(step.op) needs a known type and a value")
        }
        return (type, value)
    }

    private func expect(_ step: ValueStep, _ location: SourceLocation) async throws {
        let inTransaction = try background { try Cd.transactAndWait { try ValueQueryResult(step) } }
        let onMain = try await MainActor.run { @Sendable in try ValueQueryResult(step) }
        let inRead = try background { try ValueQueryResult(step) }
        for (place, result) in [("transaction", inTransaction), ("main thread", onMain), ("Cd.read", inRead)] {
            if let expected = step.values {
                let got = result.values.map(\.withoutObjectIDs)
                if step.sorted != nil {
                    #expect(got == expected, "\(place): \(got)", sourceLocation: location)
                } else {
                    #expect(
                        got.map(\.description).sorted() == expected.map(\.description).sorted(), "\(place): \(got)",
                        sourceLocation: location)
                }
            }
            if let count = step.count {
                #expect(result.count == count, "\(place)", sourceLocation: location)
            }
        }
    }
}

/// What a value query gave: its values as JSON and its count.
struct ValueQueryResult: Sendable {
    var values: [JSON]
    var count: Int

    init(_ step: ValueStep) throws {
        guard let type = step.type.flatMap({ VF.types[$0] }) else { throw ScenarioError("unknown type \(step)") }
        (values, count) = try Self.run(type, step)
    }

    private static func run<T: CdManagedStruct>(_ type: T.Type, _ step: ValueStep) throws -> ([JSON], Int) {
        var request = Cd.values(type)
        if let filter = step.filter { request = request.filter(filter) }
        for key in step.sorted ?? [] {
            request =
                key.hasPrefix("-") ? request.sorted(String(key.dropFirst()), ascending: false) : request.sorted(key)
        }
        if let limit = step.limit { request = request.limit(limit) }
        if let offset = step.offset { request = request.offset(offset) }
        return (try request.fetch().map { try JSON(of: $0) }, try request.count())
    }
}

/// Saves `value` in a transaction of its own; the saved value as JSON (objectIDs set).
func saveValue(_ value: any CdManagedStruct) throws -> JSON {
    try Cd.transactAndWait { () throws -> JSON in
        switch value {
        case var persistent as any CdManagedPersistentStruct:
            try persistent.save()
            return try JSON(of: persistent)
        case let unique as any CdManagedUniqueStruct:
            try unique.save()
            return try JSON(of: unique)
        default:
            _ = try value.toObject()
            return try JSON(of: value)
        }
    }
}

/// Deletes `value` in a transaction of its own.
func deleteValue(_ value: any CdManagedStruct) throws {
    try Cd.transactAndWait { () throws in
        switch value {
        case let persistent as any CdManagedPersistentStruct: try persistent.delete()
        case let unique as any CdManagedUniqueStruct: try unique.delete()
        default: throw ScenarioError("\(type(of: value)) cannot be deleted")
        }
    }
}

struct ScenarioError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension CdValue {
    /// The JSON a fixture writes for a stored value (dates: seconds since 2001, data: base64).
    var json: JSON {
        switch self {
        case .null: return .null
        case let .integer(v): return .number(Double(v))
        case let .double(v): return .number(v)
        case let .decimal(v): return .number(NSDecimalNumber(decimal: v).doubleValue)
        case let .string(v): return .string(v)
        case let .bool(v): return .bool(v)
        case let .date(v): return .number(v.timeIntervalSinceReferenceDate)
        case let .data(v): return .string(v.base64EncodedString())
        case let .uuid(v): return .string(v.uuidString)
        case let .uri(v): return .string(v.absoluteString)
        }
    }
}
