@testable import CdFaultSupport
import Foundation
import Testing

/// The hostile-store regression fixtures (`Fixtures/hostile/store/`, HostileStoreRecipe): crafted
/// by the structure mutator with every checksum valid, one per engine cause of a trap, a runaway
/// allocation or a silent loss. `CADMIUM_WRITE_FIXTURES=1` regenerates them.
@Suite struct HostileStoreFixtureTests {
    static var directory: URL { fixturesDirectory().appendingPathComponent("hostile/store") }

    static func path(_ recipe: HostileStoreRecipe) -> String {
        directory.appendingPathComponent(recipe.name + ".cdstore").path
    }

    static func load(_ recipe: HostileStoreRecipe) throws -> StoreFuzzInput {
        let path = path(recipe)
        return StoreFuzzInput(
            pageFile: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))),
            wal: (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: path + "-wal")))) ?? [])
    }

    @Test(arguments: HostileStoreRecipe.all)
    func fixtureHoldsWhatItsRecipeSays(_ recipe: HostileStoreRecipe) throws {
        if ProcessInfo.processInfo.environment["CADMIUM_WRITE_FIXTURES"] == "1" {
            let files = try #require(try recipe.make(), "\(recipe.siteID) not found in store \(recipe.store)")
            try FileManager.default.createDirectory(at: Self.directory, withIntermediateDirectories: true)
            try Data(files.pageFile).write(to: URL(fileURLWithPath: Self.path(recipe)))
            try? FileManager.default.removeItem(atPath: Self.path(recipe) + "-wal")
            if !files.wal.isEmpty { try Data(files.wal).write(to: URL(fileURLWithPath: Self.path(recipe) + "-wal")) }
        }
        let files = try Self.load(recipe)
        let layout = StoreLayout(files)
        let site = try #require(recipe.site(in: layout), "\(recipe.name): \(recipe.siteID) not found in the fixture")
        #expect(
            site.current == recipe.value,
            "\(recipe.name): \(site.id) is \(site.current), the recipe says \(recipe.value)")
        #expect(layout.resealed() == files, "\(recipe.name): a checksum the layout reaches is wrong")
        #expect(
            !layout.validHeaders.isEmpty && !layout.images.isEmpty || recipe.name.hasPrefix("1-"),
            "\(recipe.name): the fixture lost its structures")
    }

    /// Each fixture ends in a StoreError or a clean result in a child process — read-only open,
    /// writable open with two commits, verifier — and the writable open never reformats it.
    @Test(arguments: HostileStoreRecipe.all)
    func fixtureEndsInATypedErrorOrACleanResult(_ recipe: HostileStoreRecipe) throws {
        let child = try BuiltExecutable.locate("cadmium-crash-child", override: "CADMIUM_CRASH_CHILD")
        let (outcome, detail) = try StructureCampaignDriver.runFixture(
            child: child, path: Self.path(recipe), store: recipe.store)
        #expect(outcome == "clean" || outcome == "typed-error", "\(recipe.name) (\(recipe.cause)): \(detail)")
    }
}
