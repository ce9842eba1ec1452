// A relationship whose inverse is transient: nothing of the inverse is stored, so there is nothing
// to keep in step at apply and nothing to check in the verifier (EntityLayout.inverses leaves
// transient inverses out). Both force-unwrapped the inverse's missing tree or slot and trapped.

import CdStore
import Foundation
import Testing
@testable import CdObjects

@Suite("Transient inverses and exhausted keys")
struct TransientInverseTests {
    /// Department.employees (to-many) or Employee.department (to-one) transient; the other side
    /// stored, naming it as its inverse.
    static func model(transientToMany: Bool) throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(
                name: "Department", attributes: [.init(name: "name", type: .string)],
                relationships: [
                    RelationshipDescription(
                        name: "employees", destination: "Employee", inverse: "department",
                        isToMany: true, isTransient: transientToMany)
                ]),
            EntityDescription(
                name: "Employee", attributes: [.init(name: "name", type: .string)],
                relationships: [
                    RelationshipDescription(
                        name: "department", destination: "Department", inverse: "employees",
                        isTransient: !transientToMany)
                ]),
        ])
    }

    @Test(arguments: [true, false])
    func aStoredSideWithATransientInverseAppliesAndVerifies(transientToMany: Bool) throws {
        let store = try ObjectStore.open(path: nil, model: try Self.model(transientToMany: transientToMany))
        let d = try store.insert("Department", ["name": str("D")])
        if transientToMany {
            let e = try store.insert("Employee", ["name": str("E"), "department": .toOne(d)])
            #expect(try store.values(e)?["department"] == .toOne(d))
        } else {
            let e = try store.insert("Employee", ["name": str("E")])
            try store.apply(ChangeSet(updated: [d: ["employees": .toMany([e])]]))
            #expect(try store.related(d, "employees") == [e])
        }
        let problems = try store.verify()
        #expect(problems == [], "\(problems)")
    }

    /// A stored next key of Int64.max is a key (the verifier accepts it), but none is left after
    /// it: newObjectIDs overflowed `first + count` and trapped.
    @Test func anExhaustedKeySpaceIsATypedError() throws {
        let image = try StoreImage.company().changed { tx in
            try tx.tree(StoreLayout.metaTree)!.put(
                StoreLayout.nextKeyKey(root: "Office"), HostileObjectFixtures.u64LE(UInt64(Int64.max)))
        }
        let store = try ObjectStore.open(path: StoreImage.path, model: try companyModel(), options: image.options)
        defer { try? store.close() }
        #expect(errorCode { _ = try store.newObjectIDs(entity: "Office", count: 1) } == 1550)
        #expect(try store.verify() == [], "Int64.max is a key above every stored one")
    }
}
