// The README's SwiftData example, kept verbatim (its top-level statements in a test function) so
// that it keeps compiling in Swift 6 language mode and prints what the README says.

import Foundation
import SwiftData
import Testing

// MARK: - README: SwiftData (verbatim)

@Model
final class Recipe {
    @Attribute(.unique) var name: String
    var minutes: Int
    @Relationship(deleteRule: .cascade, inverse: \Ingredient.recipe) var ingredients: [Ingredient] = []

    init(name: String, minutes: Int) {
        self.name = name
        self.minutes = minutes
    }
}

@Model
final class Ingredient {
    var name: String
    var recipe: Recipe?

    init(name: String) { self.name = name }
}

@Suite struct ReadmeExampleTests {
    @Test func theSwiftDataExampleRunsAsTheReadmeSays() throws {
        // README: the program's statements (verbatim apart from where the file goes).
        let url = URL(fileURLWithPath: NSTemporaryDirectory() + "recipes-\(UUID().uuidString).store")
        let container = try ModelContainer(
            for: Recipe.self, Ingredient.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let soup = Recipe(name: "Caldo verde", minutes: 40)
        soup.ingredients.append(Ingredient(name: "kale"))
        soup.ingredients.append(Ingredient(name: "potato"))
        context.insert(soup)
        try context.save()

        let quick = try context.fetch(
            FetchDescriptor<Recipe>(
                predicate: #Predicate { $0.minutes < 60 && $0.name.localizedStandardContains("caldo") },
                sortBy: [SortDescriptor(\.name)]))
        let printed = "\(quick.map(\.name)) \(quick.first?.ingredients.map(\.name).sorted() ?? [])"
        #expect(printed == #"["Caldo verde"] ["kale", "potato"]"#)
        // (README: `print(quick.map(\.name), quick.first?.ingredients.map(\.name).sorted() ?? [])`)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
    }
}
