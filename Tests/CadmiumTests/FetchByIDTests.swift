// `filter("SELF == %@", id)` and `filter("SELF IN %@", ids)`, which the store reads by primary key
// (FK1), give in every context what the general path gives: the same request with a
// `TRUEPREDICATE` conjunct, which the key read does not take. Covered: a transaction's pending
// inserts, updates and deletes, a sub-entity's object fetched as its parent and the other way
// round, an ID of another entity, a deleted object, an ID of no object, `Cd.read`, and the
// main context refreshing an object from the last commit.

import Foundation
import Testing
@testable import Cadmium

class KeyedPet: CdManagedObject {
    @Attribute var name: String
}

final class KeyedCat: KeyedPet {
    @Attribute var lives: Int64 = 9
}

final class KeyedToy: CdManagedObject {
    @Attribute var label: String
}

extension CadmiumSuites {
    @Suite struct FetchByID {
        /// IDs of the pets "rex" and "fido", the cat "tom", a toy, and a pet deleted after saving.
        private func initPets() throws -> (rex: ObjectID, fido: ObjectID, tom: ObjectID, toy: ObjectID, gone: ObjectID)
        {
            let model = try CdModel(classes: [KeyedPet.self, KeyedCat.self, KeyedToy.self])
            try Cd.initWithStore(model: model, storeURL: nil)
            Cd.misuseHandler = { misuse in Issue.record("unexpected misuse: \(misuse)") }
            return try background {
                let ids = try Cd.transactAndWait { () -> [ObjectID] in
                    let rex = try Cd.create(KeyedPet.self)
                    rex.name = "rex"
                    let fido = try Cd.create(KeyedPet.self)
                    fido.name = "fido"
                    let tom = try Cd.create(KeyedCat.self)
                    tom.name = "tom"
                    tom.lives = 7
                    let toy = try Cd.create(KeyedToy.self)
                    toy.label = "ball"
                    let gone = try Cd.create(KeyedPet.self)
                    gone.name = "gone"
                    return try [rex, fido, tom, toy, gone].map { try #require($0.objectID) }
                }
                try Cd.transactAndWait {
                    Cd.delete(try #require(try Cd.objects(KeyedPet.self).filter("SELF == %@", ids[4]).fetchOne()))
                }
                return (ids[0], ids[1], ids[2], ids[3], ids[4])
            }
        }

        /// The objects `SELF == id` finds, by the key read and by the general path, which must agree.
        private func both<T: KeyedPet>(_ type: T.Type, _ id: ObjectID) throws -> T? {
            let keyed = try Cd.objects(type).filter("SELF == %@", id).fetchOne()
            let general = try Cd.objects(type).filter("SELF == %@ AND TRUEPREDICATE", id).fetchOne()
            #expect(keyed === general, "\(type) \(id)")
            let typed = try Cd.objects(type).filter(\.objectID == id).fetchOne()
            #expect(typed === keyed, "the key-path form, \(type) \(id)")
            return keyed
        }

        /// `SELF IN ids` by both paths, which must agree; names in result order.
        private func both<T: KeyedPet>(_ type: T.Type, in ids: [ObjectID]) throws -> [String] {
            let keyed = try Cd.objects(type).filter("SELF IN %@", ids).fetch()
            let general = try Cd.objects(type).filter("SELF IN %@ AND TRUEPREDICATE", ids).fetch()
            #expect(keyed.count == general.count && zip(keyed, general).allSatisfy { $0 === $1 }, "\(type) \(ids)")
            let typed = try Cd.objects(type).filter(ids.contains(\.objectID)).fetch()
            #expect(typed.count == keyed.count && zip(keyed, typed).allSatisfy { $0 === $1 }, "key paths, \(ids)")
            return keyed.map(\.name)
        }

        @Test func theKeyPathFormsBuildTheFormatStringsPredicates() throws {
            let rex = ObjectID(entity: "KeyedPet", primaryKey: 1)
            let tom = ObjectID(entity: "KeyedCat", primaryKey: 3)
            let one: CdTypedPredicate<KeyedPet> = \.objectID == rex
            #expect(try one.predicate() == (try CdPredicate(format: "SELF == %@", rex)))
            let some: CdTypedPredicate<KeyedPet> = [rex, tom].contains(\.objectID)
            #expect(try some.predicate() == (try CdPredicate(format: "SELF IN %@", [rex, tom])))
        }

        @Test func aReadFindsExactlyTheNamedObjectsOfTheEntity() throws {
            let (rex, fido, tom, toy, gone) = try initPets()
            let nobody = ObjectID(entity: "KeyedPet", primaryKey: 9_999)
            try background {
                try Cd.read {
                    #expect(try both(KeyedPet.self, rex)?.name == "rex")
                    let cat = try #require(try both(KeyedPet.self, tom) as? KeyedCat, "a sub-entity's object")
                    #expect(cat.lives == 7)
                    #expect(try both(KeyedCat.self, tom)?.lives == 7)
                    #expect(try both(KeyedCat.self, rex) == nil, "the parent's object is no cat")
                    #expect(try both(KeyedPet.self, toy) == nil, "another entity's ID")
                    #expect(try both(KeyedPet.self, gone) == nil, "a deleted object")
                    #expect(try both(KeyedPet.self, nobody) == nil, "no such object")
                    #expect(
                        try both(KeyedPet.self, in: [tom, nobody, fido, rex, toy, gone, rex]) == ["rex", "fido", "tom"])
                    #expect(try both(KeyedCat.self, in: [rex, tom]) == ["tom"])
                    #expect(
                        try Cd.objects(KeyedPet.self).filter("SELF IN %@", [fido, rex, tom]).limit(1).offset(1).fetch()
                            .map(\.name) == ["fido"])
                }
            }
        }

        @Test func aTransactionSeesItsPendingChanges() throws {
            let (rex, fido, tom, _, _) = try initPets()
            try background {
                try Cd.transactAndWait {
                    let kitten = try Cd.create(KeyedCat.self)
                    kitten.name = "kit"
                    let kit = try #require(kitten.objectID)
                    #expect(try both(KeyedPet.self, kit) === kitten, "a pending insert")
                    #expect(try both(KeyedCat.self, kit) === kitten)
                    let dog = try #require(try both(KeyedPet.self, fido))
                    dog.name = "fido II"
                    #expect(try both(KeyedPet.self, fido)?.name == "fido II", "a pending update")
                    Cd.delete(try #require(try both(KeyedPet.self, rex)))
                    #expect(try both(KeyedPet.self, rex) == nil, "a pending delete")
                    #expect(try both(KeyedPet.self, in: [rex, fido, tom, kit]) == ["fido II", "tom", "kit"])
                    Cd.cancelImplicitCommit()
                }
                // Nothing of the cancelled transaction reached the store.
                let names = try Cd.read { try both(KeyedPet.self, in: [rex, fido]) }
                #expect(names == ["rex", "fido"])
            }
        }

        /// A fetch overlays the transaction's changes only once it has some (the "fetch, then change"
        /// body builds no change set for its fetch), and again none after a commit inside the body.
        @Test func aTransactionOverlaysItsChangesOnlyOnceItHasSome() throws {
            let (rex, fido, _, _, _) = try initPets()
            try background {
                try Cd.transactAndWait {
                    let context = try Cd.transactionContext()
                    #expect(context.overlayChanges() == nil, "nothing changed yet")
                    let dog = try #require(try both(KeyedPet.self, fido))
                    #expect(context.overlayChanges() == nil, "a fetch changes nothing")
                    dog.name = "fido II"
                    #expect(context.overlayChanges()?.updated[fido]?["name"] == .attribute(.string("fido II")))
                    #expect(try both(KeyedPet.self, fido)?.name == "fido II", "the overlay is read")
                    try Cd.commit()
                    #expect(context.overlayChanges() == nil, "committed: nothing left to overlay")
                    #expect(try both(KeyedPet.self, fido)?.name == "fido II", "now from the store")
                    Cd.delete(try #require(try both(KeyedPet.self, rex)))
                    #expect(context.overlayChanges()?.deleted == [rex])
                    #expect(try both(KeyedPet.self, rex) == nil, "a pending delete")
                    Cd.cancelImplicitCommit()
                }
                #expect(try Cd.read { try both(KeyedPet.self, in: [rex, fido]) } == ["rex", "fido II"])
            }
        }

        @MainActor @Test func theMainContextRefreshesAFetchedObjectFromTheLastCommit() async throws {
            let (_, _, tom, _, _) = try initPets()
            let cat = try #require(try both(KeyedCat.self, tom))
            #expect(cat.lives == 7)
            try await Cd.transaction { try Cd.objects(KeyedCat.self).filter("SELF == %@", tom).fetchOne()?.lives = 5 }
            let again = try #require(try Cd.objects(KeyedPet.self).filter("SELF == %@", tom).fetchOne())
            #expect(again === cat)
            #expect(cat.lives == 5, "the fetch refreshed the main-context object")
        }
    }
}
