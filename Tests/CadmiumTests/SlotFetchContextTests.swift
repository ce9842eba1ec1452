// A fetch in slot form (FP1) against the state objects already have in their context: a
// transaction's pending changes win over the stored values the fetch read, a fetch of a parent
// entity fills child objects by the child's slot table, the main context takes a merged commit's
// values on its next fetch, and a relationship write resolved once per entity (OSL2) keeps the
// inverse in step when the object is of a sub-entity.

import Foundation
import Testing
@testable import Cadmium

class SlotPet: CdManagedObject {
    @Attribute var name: String
    @Relationship(inverse: "pets") var keeper: SlotKeeper?
}

final class SlotCat: SlotPet {
    @Attribute var lives: Int64 = 9
    @Attribute var scratchNote: String? = nil
}

final class SlotKeeper: CdManagedObject {
    @Attribute var label: String
    @Relationship(inverse: "keeper") var pets: [SlotPet]
}

extension CadmiumSuites {
    @Suite struct SlotFetchContext {
        private func initPets() throws {
            let model = try CdModel(classes: [SlotPet.self, SlotCat.self, SlotKeeper.self])
            try Cd.initWithStore(model: model, storeURL: nil)
            Cd.misuseHandler = { misuse in Issue.record("unexpected misuse: \(misuse)") }
            try background {
                try Cd.transactAndWait {
                    let keeper = try Cd.create(SlotKeeper.self)
                    keeper.label = "K"
                    let pet = try Cd.create(SlotPet.self)
                    pet.name = "plain"
                    let cat = try Cd.create(SlotCat.self)
                    cat.name = "tom"
                    cat.lives = 7
                    cat.keeper = keeper
                }
            }
        }

        @Test func aTransactionsFetchShowsItsPendingValues() throws {
            try initPets()
            try background {
                try Cd.transactAndWait {
                    let cat = try #require(try Cd.objects(SlotCat.self).fetchOne())
                    cat.lives = 3
                    cat.name = "tim"
                    // The store still holds "tom" and 7; the fetch matches on the pending values
                    // and the object keeps them.
                    let byParent = try Cd.objects(SlotPet.self).filter("name == %@", "tim").fetch()
                    #expect(byParent.count == 1 && byParent.first === cat)
                    #expect((byParent.first as? SlotCat)?.lives == 3)
                    let all = try Cd.objects(SlotPet.self).sorted("name").fetch()
                    #expect(all.map(\.name) == ["plain", "tim"])
                    #expect(try Cd.objects(SlotPet.self).filter("name == %@", "tom").fetch().isEmpty)
                    #expect(try Cd.objects(SlotCat.self).filter("lives == %@", Int64(3)).fetchOne() === cat)
                    // An inserted object fetched again keeps its values too.
                    let kitten = try Cd.create(SlotCat.self)
                    kitten.name = "kit"
                    kitten.lives = 1
                    let found = try Cd.objects(SlotCat.self).filter("lives == %@", 1).fetch()
                    #expect(found.count == 1 && found.first === kitten && found.first?.name == "kit")
                    Cd.cancelImplicitCommit()
                }
            }
        }

        @Test func aParentFetchFillsChildObjectsByTheChildsSlots() throws {
            try initPets()
            try Cd.read {
                let pets = try Cd.objects(SlotPet.self).sorted("name").fetch()
                #expect(pets.map(\.name) == ["plain", "tom"])
                let cat = try #require(pets.last as? SlotCat)
                #expect(cat.lives == 7 && cat.scratchNote == nil)
                #expect(cat.keeper?.label == "K")
                #expect(!(pets.first is SlotCat) && pets.first?.keeper == nil)
            }
        }

        @MainActor @Test func theMainContextTakesAMergedCommitOnItsNextFetch() async throws {
            try initPets()
            let cat = try #require(try Cd.objects(SlotCat.self).fetchOne())
            #expect(cat.lives == 7)
            try await Cd.transaction { try Cd.objects(SlotCat.self).fetchOne()?.lives = 5 }
            let again = try #require(try Cd.objects(SlotPet.self).filter("name == %@", "tom").fetchOne())
            #expect(again === cat)
            #expect((again as? SlotCat)?.lives == 5, "the fetch refreshed the main-context object")
        }

        @Test func inverseOfASubEntityObjectKeptInStep() throws {
            try initPets()
            try background {
                try Cd.transactAndWait {
                    let cat = try #require(try Cd.objects(SlotCat.self).fetchOne())
                    let first = try #require(cat.keeper)
                    let second = try Cd.create(SlotKeeper.self)
                    second.label = "L"
                    cat.keeper = second
                    #expect(first.pets.isEmpty, "the cat left its previous keeper")
                    #expect(second.pets.map(\.name) == ["tom"])
                    let pet = try #require(try Cd.objects(SlotPet.self).filter("name == %@", "plain").fetchOne())
                    first.pets = [pet, cat]
                    #expect(pet.keeper === first && cat.keeper === first)
                    #expect(second.pets.isEmpty, "the cat left the second keeper from the to-many side")
                }
                try Cd.read {
                    let keeper = try #require(try Cd.objects(SlotKeeper.self).filter("label == %@", "K").fetchOne())
                    #expect(Set(keeper.pets.map(\.name)) == ["plain", "tom"])
                    let cat = try #require(try Cd.objects(SlotCat.self).fetchOne())
                    #expect(cat.keeper?.label == "K")
                    #expect(try Cd.objects(SlotKeeper.self).filter("label == %@", "L").fetchOne()?.pets.isEmpty == true)
                }
            }
        }
    }
}
