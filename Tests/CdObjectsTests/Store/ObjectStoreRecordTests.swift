import CdStore
import Foundation
import Testing
@testable import CdObjects

@Suite("ObjectStore records")
struct ObjectStoreRecordTests {
    @Test func insertReadUpdateDeleteRoundTrip() throws {
        let store = try companyStore()
        let hired = Date(timeIntervalSinceReferenceDate: 700_000_000.5)
        let id = try store.insert(
            "Employee",
            [
                "badge": str("B1"), "name": str("Ada"), "hired": .attribute(.date(hired)),
                "email": str("ada@x.org"), "onBreak": .attribute(.bool(true)),
            ])
        let values = try #require(try store.values(id))
        #expect(values["badge"] == str("B1"))
        #expect(values["salary"] == int(0), "default applied")
        #expect(values["hired"] == .attribute(.date(hired)))
        #expect(values["department"] == .toOne(nil))
        #expect(values["onBreak"] == nil, "transient attributes are not stored")
        try store.apply(ChangeSet(updated: [id: ["salary": int(-5), "email": .attribute(.null)]]))
        #expect(try store.values(id)?["salary"] == int(-5))
        #expect(try store.values(id)?["email"] == .attribute(.null))
        let applied = try store.apply(ChangeSet(deleted: [id]))
        #expect(applied.deleted == [id])
        #expect(try store.values(id) == nil)
        #expect(try !store.exists(id))
        #expect(try store.verify().isEmpty)
    }

    @Test func everyValueTypeRoundTripsThroughTheRecordCodec() throws {
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "All",
                attributes: [
                    .init(name: "i16", type: .integer16), .init(name: "i32", type: .integer32),
                    .init(name: "i64", type: .integer64),
                    .init(name: "dec", type: .decimal), .init(name: "dbl", type: .double),
                    .init(name: "flt", type: .float),
                    .init(name: "str", type: .string), .init(name: "yes", type: .boolean),
                    .init(name: "no", type: .boolean),
                    .init(name: "date", type: .date), .init(name: "bin", type: .binaryData),
                    .init(name: "uuid", type: .uuid),
                    .init(name: "uri", type: .uri), .init(name: "nothing", type: .string),
                ])
        ])
        let store = try ObjectStore.open(path: nil, model: model)
        let values: [String: PropertyValue] = [
            "i16": int(-32768), "i32": int(2_147_483_647), "i64": int(Int64.min),
            "dec": .attribute(.decimal(Decimal(string: "12345.678901")!)), "dbl": .attribute(.double(-0.125)),
            "flt": .attribute(.double(3.5)), "str": str("héllo\u{0}wörld"), "yes": .attribute(.bool(true)),
            "no": .attribute(.bool(false)), "date": .attribute(.date(Date(timeIntervalSinceReferenceDate: -1e9))),
            "bin": .attribute(.data(Data([0, 1, 255]))),
            "uuid": .attribute(.uuid(UUID(uuidString: "00000000-0000-4000-8000-0000000000AB")!)),
            "uri": .attribute(.uri(URL(string: "https://example.com/a?b=c")!)),
        ]
        let id = try store.insert("All", values)
        var expected = values
        expected["nothing"] = .attribute(.null)
        #expect(try store.values(id) == expected)
    }

    @Test func newObjectIDsNeverRepeatAndSurviveReopening() throws {
        let fs = InMemoryFileSystem()
        var options = StoreOptions(fileSystem: fs)
        options.durability = .full
        let model = try companyModel()
        var store = try ObjectStore.open(path: "/db", model: model, options: options)
        let a = try store.newObjectIDs(entity: "Employee", count: 3)
        let m = try store.newObjectIDs(entity: "Manager", count: 2)
        #expect(a.map(\.primaryKey) == [1, 2, 3])
        #expect(m.map(\.primaryKey) == [4, 5], "sub-entities share the hierarchy's counter")
        #expect(try store.newObjectIDs(entity: "Desk", count: 1)[0].primaryKey == 1)
        try store.apply(ChangeSet(inserted: [m[1]: ["badge": str("M")]]))
        let unused = try store.newObjectIDs(entity: "Employee", count: 10)
        try store.apply(ChangeSet(inserted: [unused[0]: ["badge": str("E")]]))
        try store.close()
        store = try ObjectStore.open(path: "/db", model: model, options: options)
        #expect(
            try store.newObjectIDs(entity: "Employee", count: 1)[0].primaryKey == 16,
            "keys handed out before close are not reused")
        #expect(try store.values(m[1])?["badge"] == str("M"))
        #expect(try store.values(m[1])?["level"] == int(1))
        try store.close()
    }

    @Test func newObjectIDsAreThreadSafe() async throws {
        let store = try companyStore()
        let all = try await withThrowingTaskGroup(of: [Int64].self) { group in
            for _ in 0..<8 { group.addTask { try store.newObjectIDs(entity: "Project", count: 500).map(\.primaryKey) } }
            var keys: [Int64] = []
            for try await k in group { keys += k }
            return keys
        }
        #expect(Set(all).count == 4000)
        #expect(all.max() == 4000)
    }

    @Test func aSnapshotDoesNotSeeLaterApplies() throws {
        let store = try companyStore()
        let a = try store.insert("Office", ["city": str("A")])
        let snapshot = try store.beginRead()
        defer { snapshot.end() }
        let b = try store.insert("Office", ["city": str("B")])
        try store.apply(ChangeSet(updated: [a: ["city": str("A2")]]))
        #expect(try snapshot.fetchIDs(FetchRequest(entity: "Office")) == [a])
        #expect(try snapshot.values(of: a)?["city"] == str("A"))
        #expect(try !snapshot.exists(b))
        #expect(try store.fetch(FetchRequest(entity: "Office")) == [a, b])
        #expect(snapshot.commit < store.engine.lastCommit)
    }

    @Test func aFileBackedStoreKeepsItsDataAcrossReopening() throws {
        let dir = try TempDirectory()
        defer { dir.remove() }
        let path = dir.path("company.cdstore")
        var store = try ObjectStore.open(path: path, model: companyModel())
        let d = try store.insert("Department", ["name": str("Ops")])
        let e = try store.insert("Employee", ["badge": str("1"), "department": .toOne(d)])
        try store.close()
        store = try ObjectStore.open(path: path, model: companyModel())
        #expect(try store.related(d, "employees") == [e])
        var request = FetchRequest(entity: "Employee")
        request.predicate = try CdPredicate(format: "badge == '1'")
        #expect(try store.fetch(request) == [e])
        #expect(try store.verify() == [])
        try store.close()
    }

    @Test func reopeningWithAChangedModelIsIncompatible() throws {
        let fs = InMemoryFileSystem()
        let options = StoreOptions(fileSystem: fs)
        let store = try ObjectStore.open(path: "/db", model: companyModel(), options: options)
        try store.insert("Office", ["city": str("Oslo")])
        try store.close()
        var entities = try companyModel().entities
        entities[0].attributes.append(.init(name: "country", type: .string))
        let changed = try ObjectModel(entities: entities)
        do {
            _ = try ObjectStore.open(path: "/db", model: changed, options: options)
            Issue.record("opened with an incompatible model")
        } catch let CdError.incompatibleModel(storeHash, modelHash, difference) {
            #expect(storeHash == (try companyModel().versionHash))
            #expect(modelHash == changed.versionHash)
            #expect(difference?.contains("country") == true, "\(difference ?? "nil")")
        }
        let again = try ObjectStore.open(path: "/db", model: companyModel(), options: options)
        #expect(try again.fetch(FetchRequest(entity: "Office")).count == 1)
        try again.close()
    }

    @Test func insertingAnAbstractOrUnknownEntityOrATakenKeyFails() throws {
        let model = try ObjectModel(entities: [
            EntityDescription(name: "Shape", isAbstract: true), EntityDescription(name: "Circle", parent: "Shape"),
        ])
        let store = try ObjectStore.open(path: nil, model: model)
        #expect(errorCode { _ = try store.newObjectIDs(entity: "Shape", count: 1) } == 1550)
        #expect(
            errorCode { try store.apply(ChangeSet(inserted: [ObjectID(entity: "Shape", primaryKey: 1): [:]])) } == 1550)
        #expect(
            errorCode { try store.apply(ChangeSet(inserted: [ObjectID(entity: "Nope", primaryKey: 1): [:]])) } == 1550)
        let c = try store.insert("Circle", [:])
        #expect(errorCode { try store.apply(ChangeSet(inserted: [c: [:]])) } == 1550)
        #expect(
            errorCode { try store.apply(ChangeSet(updated: [ObjectID(entity: "Circle", primaryKey: 99): [:]])) } == 1550
        )
    }
}

@Suite("Decimal NaN")
struct DecimalNaNRecordTests {
    /// A NaN decimal is stored as the text "NaN" (its description); it must read back as NaN,
    /// not fail as corruption.
    @Test func aNaNDecimalReadsBack() throws {
        let model = try ObjectModel(
            entities: [EntityDescription(name: "Price", attributes: [.init(name: "amount", type: .decimal)])])
        let store = try ObjectStore.open(path: nil, model: model)
        let id = try store.insert("Price", ["amount": .attribute(.decimal(.nan))])
        guard case let .attribute(.decimal(d))? = try store.values(id)?["amount"] else {
            Issue.record("no decimal read back"); return
        }
        #expect(d.isNaN)
        #expect(try store.verify().isEmpty)
    }

    @Test func aNaNDecimalSurvivesJSONCoding() throws {
        let data = try JSONEncoder().encode(CodableCdValue(.decimal(.nan)))
        guard case let .decimal(d) = try JSONDecoder().decode(CodableCdValue.self, from: data).value else {
            Issue.record("not a decimal"); return
        }
        #expect(d.isNaN)
    }
}
