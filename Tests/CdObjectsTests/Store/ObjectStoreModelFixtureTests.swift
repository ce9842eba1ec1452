// Every shared model fixture as an object store: objects of each concrete entity with every
// attribute filled (within its validation rules) and every to-one relationship set, saved, read
// back, verified, and deleted with the delete rules observed.

import Foundation
import Testing
@testable import CdObjects

@Suite("ObjectStore over the model fixtures", .enabled(if: ModelFixtures.shouldRun, ModelFixtures.skipReason))
struct ObjectStoreModelFixtureTests {
    static let paths = [
        "CadmiumTestModel.xcdatamodel", "CadmiumBasicExample.xcdatamodel", "CoreStoreTestModel.xcdatamodel",
        "SyncPropertyMapperModel.xcdatamodel", "SampleModel.xcdatamodeld",
        "SampleModel.xcdatamodeld/SampleModel2.xcdatamodel", "SampleModel.xcdatamodeld/SampleModel3.xcdatamodel",
    ]

    /// A valid value of the attribute's type for object number `i` (distinct per object, so
    /// uniqueness constraints hold), within its validation bounds.
    static func sample(_ a: AttributeDescription, _ i: Int) -> CdValue {
        func clamp(_ v: CdValue) -> CdValue {
            if let min = a.validation.minValue, CdValue.compare(v, min) == .orderedAscending { return min }
            if let max = a.validation.maxValue, CdValue.compare(v, max) == .orderedDescending { return max }
            return v
        }
        switch a.type {
        case .integer16, .integer32, .integer64: return clamp(.integer(Int64(i + 1)))
        case .decimal: return clamp(.decimal(Decimal(i) + Decimal(string: "0.5")!))
        case .double, .float: return clamp(.double(Double(i) + 0.25))
        case .string:
            var s = "v\(i)"
            if let min = a.validation.minLength, s.count < min { s += String(repeating: "x", count: min - s.count) }
            return .string(s)
        case .boolean: return .bool(i % 2 == 0)
        case .date: return clamp(.date(Date(timeIntervalSinceReferenceDate: Double(i) * 3600)))
        case .binaryData, .transformable: return .data(Data([UInt8(i % 256), 7]))
        case .uuid: return .uuid(UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", i))!)
        case .uri: return .uri(URL(string: "https://example.com/\(i)")!)
        }
    }

    @Test(arguments: paths)
    func objectsOfEveryEntitySaveReadBackAndDelete(_ path: String) throws {
        guard let model = try ModelFixtures.load(path)?.model else { return }
        let store = try ObjectStore.open(path: nil, model: model)
        let concrete = model.entities.filter { !$0.isAbstract }
        var ids: [String: [ObjectID]] = [:]
        var inserted: [ObjectID: [String: PropertyValue]] = [:]
        var serial = 0
        for e in concrete {
            ids[e.name] = try store.newObjectIDs(entity: e.name, count: 2)
            for id in ids[e.name]! {
                var values: [String: PropertyValue] = [:]
                for a in model.allAttributes(of: e.name) where !a.isTransient {
                    values[a.name] = .attribute(Self.sample(a, serial))
                }
                serial += 1
                inserted[id] = values
            }
        }
        // One to-one relationship per object, to the first object of a concrete destination kind,
        // unless it has an inverse that is also to-one and already used.
        var takenOneToOne = Set<String>()
        for e in concrete {
            for r in model.allRelationships(of: e.name) where !r.isToMany && !r.isTransient {
                let kinds = [r.destination] + model.allSubentities(of: r.destination).map(\.name)
                guard let target = kinds.compactMap({ ids[$0]?.last }).first else { continue }
                let source = ids[e.name]![0]
                if let inverse = model.inverse(of: r.name, in: e.name), !inverse.isToMany {
                    guard takenOneToOne.insert("\(target)|\(inverse.name)").inserted, target != source else { continue }
                }
                inserted[source]![r.name] = .toOne(target)
            }
        }
        let applied = try store.apply(ChangeSet(inserted: inserted))
        #expect(applied.inserted == Set(inserted.keys))
        try store.read { s in
            for (id, values) in inserted {
                let stored = try #require(try s.values(of: id))
                for (k, v) in values { #expect(stored[k] == v, "\(path) \(id).\(k)") }
            }
            for e in concrete {
                var r = FetchRequest(entity: e.name)
                r.includesSubentities = false
                #expect(try s.fetchIDs(r) == ids[e.name]!)
            }
        }
        #expect(try store.verify() == [], "\(path)")
        // Delete everything: delete rules (cascade, nullify) run; nothing may remain.
        let deleted = try store.apply(ChangeSet(deleted: Set(inserted.keys)))
        #expect(deleted.deleted == Set(inserted.keys))
        for e in concrete { #expect(try store.fetch(FetchRequest(entity: e.name)) == []) }
        #expect(try store.verify() == [])
    }

    @Test func cascadeChainsInSyncPropertyMapperModel() throws {
        guard let model = try ModelFixtures.load("SyncPropertyMapperModel.xcdatamodel")?.model else { return }
        let store = try ObjectStore.open(path: nil, model: model)
        let building = try store.insert("Building", [:])
        let apartments = try (0..<2).map { _ in try store.insert("Apartment", ["building": .toOne(building)]) }
        let rooms = try apartments.flatMap { a in
            try (0..<3).map { _ in try store.insert("Room", ["apartment": .toOne(a)]) }
        }
        let park = try store.insert("Park", ["building": .toOne(building)])
        let other = try store.insert("Apartment", [:])
        #expect(try Set(store.related(building, "apartments")) == Set(apartments))
        let applied = try store.apply(ChangeSet(deleted: [building]))
        #expect(applied.deleted == Set([building, park] + apartments + rooms))
        #expect(try store.fetch(FetchRequest(entity: "Room")) == [])
        #expect(try store.fetch(FetchRequest(entity: "Apartment")) == [other])
        // A self-referencing cascade: deleting the root deletes the whole chain.
        let r1 = try store.insert("Recursive", [:])
        let r2 = try store.insert("Recursive", ["recursive": .toOne(r1)])
        let r3 = try store.insert("Recursive", ["recursive": .toOne(r2)])
        #expect(try store.apply(ChangeSet(deleted: [r1])).deleted == [r1, r2, r3])
        // User → notes cascades, company is nullified.
        let company = try store.insert("Company", [:])
        let user = try store.insert("User", ["company": .toOne(company)])
        let note = try store.insert("Note", ["user": .toOne(user)])
        let result = try store.apply(ChangeSet(deleted: [user]))
        #expect(result.deleted == [user, note])
        #expect(result.updated == [company])
        #expect(try store.values(company)?["user"] == .toOne(nil))
        #expect(try store.verify() == [])
    }

    @Test func nullifyInCadmiumBasicExample() throws {
        guard let model = try ModelFixtures.load("CadmiumBasicExample.xcdatamodel")?.model else { return }
        let store = try ObjectStore.open(path: nil, model: model)
        let other = try store.insert("OtherItem", ["prop": int(4)])
        let example = try store.insert("ExampleItem", ["name": str("tap"), "myOther": .toOne(other)])
        #expect(try store.values(other)?["myExample"] == .toOne(example))
        #expect(try store.values(example)?["numberTaps"] == int(0), "default from the model file")
        let applied = try store.apply(ChangeSet(deleted: [example]))
        #expect(applied.updated == [other])
        #expect(try store.values(other)?["myExample"] == .toOne(nil))
        #expect(try store.verify() == [])
    }
}
