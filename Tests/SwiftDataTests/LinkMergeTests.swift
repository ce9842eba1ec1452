// Two contexts of one container link different models to one object and save one after the
// other: both links stay. A saved model's to-many travels as the links added and removed
// (ChangeSetParts), never as the list it read, so the second save does not undo the first.

import Foundation
import SwiftData
import Testing

@Model
final class Sticker {
    var name: String
    @Relationship(inverse: \Notebook.stickers) var notebooks: [Notebook] = []
    init(name: String) { self.name = name }
}

@Model
final class Notebook {
    var title: String
    var stickers: [Sticker] = []
    init(title: String) { self.title = title }
}

@Suite struct LinkMergeTests {
    func container() throws -> ModelContainer {
        try ModelContainer(
            for: Sticker.self, Notebook.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    }

    @Test func linksSavedByTwoContextsAreBothKept() throws {
        let container = try container()
        let seed = ModelContext(container)
        seed.insert(Sticker(name: "x"))
        try seed.save()
        let a = ModelContext(container), b = ModelContext(container)
        let xa = try #require(try a.fetch(FetchDescriptor<Sticker>()).first)
        let xb = try #require(try b.fetch(FetchDescriptor<Sticker>()).first)
        #expect(xa.notebooks.isEmpty && xb.notebooks.isEmpty)  // both read the list before linking
        xa.notebooks.append(Notebook(title: "from A"))
        xb.notebooks.append(Notebook(title: "from B"))
        try a.save()
        try b.save()
        let check = ModelContext(container)
        let x = try #require(try check.fetch(FetchDescriptor<Sticker>()).first)
        #expect(Set(x.notebooks.map(\.title)) == ["from A", "from B"])
        #expect(try check.fetch(FetchDescriptor<Notebook>()).allSatisfy { $0.stickers.map(\.name) == ["x"] })
    }

    @Test func anUnlinkAndAnOverlappingLinkBothHold() throws {
        let container = try container()
        let seed = ModelContext(container)
        let sticker = Sticker(name: "x")
        seed.insert(sticker)
        sticker.notebooks.append(Notebook(title: "old"))
        try seed.save()
        let a = ModelContext(container), b = ModelContext(container)
        let xa = try #require(try a.fetch(FetchDescriptor<Sticker>()).first)
        let xb = try #require(try b.fetch(FetchDescriptor<Sticker>()).first)
        xa.notebooks.removeAll()
        xb.notebooks.append(Notebook(title: "new"))
        try a.save()
        try b.save()
        let check = ModelContext(container)
        let x = try #require(try check.fetch(FetchDescriptor<Sticker>()).first)
        #expect(
            try check.fetch(FetchDescriptor<Notebook>(sortBy: [SortDescriptor(\.title)])).map(\.stickers.count) == [
                1, 0,
            ])
        #expect(x.notebooks.map(\.title) == ["new"])
    }
}
