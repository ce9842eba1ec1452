// The hostile object stores of Fixtures/hostile/objects/: each is the company store of
// `StoreImage.company()` with one stored value changed through the engine (every checksum right),
// one per cause the hardening work fixed. `cases.json` says what each holds and how the object
// store must refuse it; the recipes that make them are `HostileObjectFixtures.recipes`.
//
// Rebuild the files with `CADMIUM_WRITE_FIXTURES=1 swift test --filter HostileObjectFixture`;
// without it, `committedFixturesHoldWhatTheirRecipesWrite` checks that every committed file still
// holds, tree by tree and entry by entry, what its recipe writes.

import CdFaultSupport
import CdStore
import Foundation
import Testing
@testable import CdObjects

/// One line of `Fixtures/hostile/objects/cases.json`.
struct HostileObjectCase: Codable, Sendable, CustomTestStringConvertible {
    /// The file is `<name>.cdstore`.
    var name: String
    /// What was changed, and what went wrong before the fix.
    var what: String
    /// How `ObjectStore.open` and the reads end: `reads` (everything reads; the verifier still
    /// finds the damage), `corruption`, `unsupportedObjectFormat`.
    var objectStore: String

    var testDescription: String { name }
}

enum HostileObjectFixtures {
    static let directory: URL = ModelFixtures.repoRoot.appendingPathComponent("Fixtures/hostile/objects")

    static let cases: [HostileObjectCase] = {
        guard let data = try? Data(contentsOf: directory.appendingPathComponent("cases.json")),
            let cases = try? JSONDecoder().decode([HostileObjectCase].self, from: data)
        else { return [] }
        return cases
    }()

    static func u64LE(_ v: UInt64) -> [UInt8] { var out: [UInt8] = []; out.appendLE(v); return out }

    /// The change each fixture makes to the company store, by name.
    static let recipes: [String: @Sendable (WriteTransaction) throws -> Void] = [
        // The stored model marks Department.employees transient while its inverse
        // Employee.department is stored (the stored hash left as it was): the verifier's to-one
        // pass force-unwrapped the missing to-many tree of the inverse and trapped.
        "transient-to-many-with-stored-inverse": { tx in
            let meta = try #require(try tx.tree(StoreLayout.metaTree))
            let json = try #require(try meta.get(StoreLayout.metaModelKey))
            let models = try MutationCatalog.hostileModels(json)
            let changed = try #require(models.first { $0.0.contains("Department.employees transient") })
            try meta.put(StoreLayout.metaModelKey, changed.1)
        },
        // A to-many entry (Department.employees) names entity code 127: the verifier's check of
        // the employees' to-one inverse read that list, threw, and cdstore-verify exited 8.
        "rel-entry-unknown-entity-code": { tx in
            let tree = try #require(try tx.tree("cd.rel.Department.employees"))
            let first = try #require(try firstEntry(tree))
            try tree.put(first.key, [0x7F])
        },
        // Eve's Employee.projects entry names a Desk (Desk 1 exists): deleting her department
        // cascaded to her, the nullify rule of projects went to the desk's side of the inverse,
        // Project.members, and force-unwrapped the tree a Desk does not have.
        "rel-entry-wrong-entity": { tx in
            let tree = try #require(try tx.tree("cd.rel.Employee.projects"))
            let first = try #require(try firstEntry(tree))
            let desk = try #require(StoreLayout(model: try companyModel()).entities["Desk"])
            try tree.put(first.key, MutationCatalog.varint(UInt64(desk.code)))
        },
        // Eve's record says her department is Desk 1: deleting Department 1 cascaded to her and
        // the nullify rule of department went to the desk's side of the inverse,
        // Department.employees, and force-unwrapped the tree a Desk does not have.
        "record-to-one-wrong-entity": { tx in
            let layout = StoreLayout(model: try companyModel())
            let tree = try #require(try tx.tree("cd.rec.Employee"))
            let first = try #require(try firstEntry(tree))
            var record = try RecordCodec.decode(first.value, layout: layout)
            record.toOne[try #require(record.entity.toOneSlots["department"])] = ObjectID(entity: "Desk", primaryKey: 1)
            try tree.put(first.key, RecordCodec.encode(record, layout: layout))
        },
        // A many-to-many entry (Project.members) with a trailing byte: the same exit 8, from the
        // Employee.projects side.
        "rel-many-to-many-trailing-byte": { tx in
            let tree = try #require(try tx.tree("cd.rel.Project.members"))
            let first = try #require(try firstEntry(tree))
            try tree.put(first.key, first.value + [0])
        },
        // Object format 3, newer than this build: ObjectStore.open never read the format entry.
        "format-newer": { tx in
            try #require(try tx.tree(StoreLayout.metaTree)).put(StoreLayout.metaFormatKey, [3, 0, 0, 0])
        },
        // No format entry: opened as if it were format 1.
        "format-missing": { tx in _ = try #require(try tx.tree(StoreLayout.metaTree)).delete(StoreLayout.metaFormatKey)
        },
        // A 3-byte format entry: opened as if it were format 1.
        "format-damaged": { tx in
            try #require(try tx.tree(StoreLayout.metaTree)).put(StoreLayout.metaFormatKey, [1, 0, 0])
        },
        // No hash entry: open took the store for a new one and wrote its own model over the meta.
        "hash-missing": { tx in _ = try #require(try tx.tree(StoreLayout.metaTree)).delete(StoreLayout.metaHashKey) },
        // next.Employee = u64 max (−1): open handed out primary keys from −1; the verifier said
        // nothing.
        "next-key-negative": { tx in
            try #require(try tx.tree(StoreLayout.metaTree)).put(StoreLayout.nextKeyKey(root: "Employee"), u64LE(.max))
        },
        // An Office record whose entity code is the varint of u64 max: an ID-only fetch converted
        // it with Int(_:) and trapped.
        "record-entity-code-overflow": { tx in
            let tree = try #require(try tx.tree("cd.rec.Office"))
            let first = try #require(try firstEntry(tree))
            try tree.put(
                first.key, [StoreLayout.formatVersion] + MutationCatalog.varint(.max) + Array(first.value.dropFirst(2)))
        },
        // Employee E1's badge entry cut to its columns: inserting a second E1 read a primary key
        // at offset count − 8 < 0 of that key and trapped.
        "unique-index-key-without-primary-key": { tx in
            let tree = try #require(try tx.tree("cd.idx.Employee.unique.badge"))
            let first = try #require(try firstEntry(tree))
            try tree.put(Array(first.key.dropLast(8)), [])
        },
    ]

    static func firstEntry(_ tree: Tree) throws -> (key: [UInt8], value: [UInt8])? {
        var first: (key: [UInt8], value: [UInt8])?
        try tree.scan { key, value in
            first = (key, value); return false
        }
        return first
    }

    /// The fixture `name` as the recipe makes it now.
    static func make(_ name: String) throws -> StoreImage {
        let recipe = try #require(recipes[name], "no recipe for fixture \(name)")
        return try StoreImage.company().changed(recipe)
    }

    /// The committed files of fixture `name`, as an image at `StoreImage.path`.
    static func committed(_ name: String) throws -> StoreImage {
        var files: [String: [UInt8]] = [:]
        for suffix in ["", "-wal"] {
            let url = directory.appendingPathComponent("\(name).cdstore\(suffix)")
            if let data = try? Data(contentsOf: url) { files[StoreImage.path + suffix] = [UInt8](data) }
        }
        #expect(files[StoreImage.path] != nil, "Fixtures/hostile/objects/\(name).cdstore is missing")
        return StoreImage(files: files)
    }
}

@Suite("Hostile object-store fixtures", .serialized)
struct HostileObjectFixtureTests {
    static var writeFixtures: Bool { ProcessInfo.processInfo.environment["CADMIUM_WRITE_FIXTURES"] == "1" }

    @Test func everyRecipeHasACaseAndEveryCaseARecipe() {
        #expect(Set(HostileObjectFixtures.cases.map(\.name)) == Set(HostileObjectFixtures.recipes.keys))
    }

    /// Writes the fixtures that are missing or out of date with `CADMIUM_WRITE_FIXTURES=1` (the
    /// others are left alone: page bytes differ from one write to the next); then checks that
    /// the committed files hold, tree by tree and entry by entry, what the recipes write.
    @Test(arguments: HostileObjectFixtures.cases)
    func committedFixturesHoldWhatTheirRecipesWrite(_ fixture: HostileObjectCase) throws {
        let made = try HostileObjectFixtures.make(fixture.name)
        let expected = try made.entries()
        func committedEntries() -> [String: [(key: [UInt8], value: [UInt8])]]? {
            let url = HostileObjectFixtures.directory.appendingPathComponent("\(fixture.name).cdstore")
            guard FileManager.default.fileExists(atPath: url.path) else { return nil }
            return try? HostileObjectFixtures.committed(fixture.name).entries()
        }
        func same(_ a: [String: [(key: [UInt8], value: [UInt8])]]?) -> Bool {
            guard let a, a.keys.sorted() == expected.keys.sorted() else { return false }
            return expected.allSatisfy { tree, entries in
                a[tree]?.map(\.key) == entries.map(\.key) && a[tree]?.map(\.value) == entries.map(\.value)
            }
        }
        if Self.writeFixtures, !same(committedEntries()) {
            try FileManager.default.createDirectory(
                at: HostileObjectFixtures.directory, withIntermediateDirectories: true)
            for suffix in ["", "-wal"] {
                let url = HostileObjectFixtures.directory.appendingPathComponent("\(fixture.name).cdstore\(suffix)")
                try? FileManager.default.removeItem(at: url)
                if let bytes = made.files[StoreImage.path + suffix] { try Data(bytes).write(to: url) }
            }
        }
        #expect(
            same(committedEntries()),
            "\(fixture.name).cdstore does not hold what its recipe writes (CADMIUM_WRITE_FIXTURES=1 rewrites it)")
    }

    /// The object store refuses the fixture as `cases.json` says (or reads it), never with an
    /// untyped error or a trap; the verifier with object checks reports problems and does not
    /// throw.
    @Test(arguments: HostileObjectFixtures.cases)
    func objectStoreAndVerifierTreatTheFixtureAsDamage(_ fixture: HostileObjectCase) throws {
        let image = try HostileObjectFixtures.committed(fixture.name)
        let outcome = HostileProbe.run(image, model: try companyModel())
        outcome.expectKeptTheRules(fixture.name)
        #expect(outcome.problems?.isEmpty == false, "\(fixture.name): the verifier found nothing: \(outcome)")
        switch (fixture.objectStore, outcome.objectError) {
        case ("reads", nil), ("corruption", .store(.corruption)?),
            ("unsupportedObjectFormat", .unsupportedObjectFormat?):
            break
        default: Issue.record("\(fixture.name): expected \(fixture.objectStore), got \(outcome)")
        }
    }

    /// `cdstore-verify` exits 4 (damage found) on every fixture, never 8.
    @Test(arguments: HostileObjectFixtures.cases)
    func theCommandExitsFour(_ fixture: HostileObjectCase) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cd-hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("\(fixture.name).cdstore")
        for (file, bytes) in try HostileObjectFixtures.committed(fixture.name).files {
            try Data(bytes).write(to: URL(fileURLWithPath: path.path + file.dropFirst(StoreImage.path.count)))
        }
        let output = try BuiltExecutable.run(
            try BuiltExecutable.locate("cdstore-verify"), arguments: ["--no-progress", path.path])
        // A trap is SIGILL, signal 4: the status alone cannot tell it from "problems found".
        #expect(!output.diedOfSignal && output.status == 4, "\(fixture.name): \(output.stdout) \(output.stderr)")
        #expect(output.stdout.contains("records"), "\(fixture.name): the finding is an object-level one")
    }
}
