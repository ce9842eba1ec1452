import Foundation
import Testing
@testable import CdObjects

/// Change sets that carry to-many changes as deltas (`ChangeSet.toManyDeltas`): applied link by
/// link against the list as stored, with inverses kept in step.
@Suite("ObjectStore to-many deltas")
struct ToManyDeltaStoreTests {
    @Test func anUnlinkThenALinkFromAnotherChangeSetLeaveTheNewLinkOnly() throws {
        let store = try companyStore()
        let p = try store.newObjectIDs(entity: "Project", count: 1)[0]
        let e1 = try store.newObjectIDs(entity: "Employee", count: 1)[0]
        try store.apply(
            ChangeSet(inserted: [
                p: ["title": str("P"), "members": .toMany([e1])], e1: ["badge": str("1"), "projects": .toMany([p])],
            ]))
        try store.apply(
            ChangeSet(toManyDeltas: [
                p: ["members": ToManyDelta(added: [], removed: [e1])],
                e1: ["projects": ToManyDelta(added: [], removed: [p])],
            ]))
        #expect(try store.related(p, "members") == [])
        let e2 = try store.newObjectIDs(entity: "Employee", count: 1)[0]
        try store.apply(
            ChangeSet(
                inserted: [e2: ["badge": str("2"), "projects": .toMany([p])]],
                toManyDeltas: [p: ["members": ToManyDelta(added: [e2])]]))
        #expect(try store.related(p, "members") == [e2])
        #expect(try store.related(e2, "projects") == [p])
        #expect(try store.related(e1, "projects") == [])
        #expect(try store.verify().isEmpty)
    }

    @Test func aDeltaKeepsLinksItDoesNotName() throws {
        let store = try companyStore()
        let p = try store.newObjectIDs(entity: "Project", count: 1)[0]
        let es = try store.newObjectIDs(entity: "Employee", count: 3)
        try store.apply(
            ChangeSet(inserted: [
                p: ["title": str("P"), "members": .toMany([es[0]])], es[0]: ["badge": str("0")],
                es[1]: ["badge": str("1")], es[2]: ["badge": str("2")],
            ]))
        try store.apply(ChangeSet(toManyDeltas: [p: ["members": ToManyDelta(added: [es[1]])]]))
        try store.apply(ChangeSet(toManyDeltas: [es[2]: ["projects": ToManyDelta(added: [p])]]))
        #expect(try store.related(p, "members") == es)
        #expect(try store.related(es[1], "projects") == [p])
        try store.apply(ChangeSet(toManyDeltas: [p: ["members": ToManyDelta(added: [], removed: [es[0]])]]))
        #expect(try store.related(p, "members") == [es[1], es[2]])
        #expect(try store.related(es[0], "projects") == [])
        #expect(try store.verify().isEmpty)
    }
}
