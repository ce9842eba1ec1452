import Foundation
import Testing
@testable import CdObjects

/// The version hash: SHA-256 correctness, golden values, what it is and is not sensitive to,
/// and the words of `firstStoredShapeDifference`.
@Suite struct ModelVersionHashTests {
    @Test func sha256MatchesFIPSVectors() {
        #expect(
            SHA256.hex(SHA256.digest(Array("abc".utf8)))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(SHA256.digest([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            SHA256.hex(SHA256.digest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            SHA256.hex(SHA256.digest([UInt8](repeating: 0x61, count: 1_000)))
                == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }

    /// The worked example of docs/MODEL.md §Version hash, byte for byte.
    @Test func versionHashEncodesDocumentedBytes() throws {
        let model = try ObjectModel(entities: [
            EntityDescription(name: "A", attributes: [.init(name: "n", type: .integer16, isOptional: false)])
        ])
        let expected =
            "43444d56" + "01" + "01000000" + "0100000041" + "00" + "01000000" + "010000006e" + "6400" + "00" + "00"
            + "00000000" + "00000000" + "00000000"
        #expect(SHA256.hex(model.storedShapeEncoding) == expected)
        #expect(model.versionHash == SHA256.hex(SHA256.digest(model.storedShapeEncoding)))
        #expect(model.versionHash == "7a8ac32cdc5c00b356858729fb5ce9b43f7b56468e47d9fb5f1d339afcc22a89")
    }

    @Test func builtModelHasGoldenHash() throws {
        let hash = try ObjectModel(entities: companyEntities()).versionHash
        #expect(hash == "68458c2ab116df08b069efaec5581def71c02eba5c0ce57c8e9dc949361b5e59")
    }

    @Test(.enabled(if: ModelFixtures.shouldRun, ModelFixtures.skipReason))
    func fixtureModelsHaveGoldenHashes() throws {
        guard let sample = try ModelFixtures.load("SampleModel.xcdatamodeld")?.model,
            let cadmium = try ModelFixtures.load("CadmiumTestModel.xcdatamodel")?.model
        else { return }
        #expect(cadmium.versionHash == "90427ddf37a0a862c0199a0f691b355fb42fa587d95df5a94564826382f8f895")
        #expect(sample.versionHash == "0c35bb045056255f1fc73e506c1301ce6c8ee526976fb4be0f72268b5ccfad94")
    }

    @Test func hashIgnoresDeclarationOrderAndNonStoredChanges() throws {
        let base = try ObjectModel(entities: companyEntities())
        var entities = companyEntities()
        entities.reverse()
        entities[1].attributes.reverse()  // Employee: order of declaration
        entities[1].attributes[0].defaultValue = .bool(true)  // onBreak is transient anyway
        entities[1].attributes.append(.init(name: "mood", type: .string, isTransient: true))
        entities[1].attributes[1].validation = .init(minLength: 3, pattern: "[0-9]+")
        entities[1].attributes[2].defaultValue = .integer(100)
        entities[1].attributes[2].userInfo = ["k": "v"]
        entities[1].className = "Staff"
        entities[1].userInfo = [:]
        entities[1].isAbstract = true
        entities[1].renamingIdentifier = "Worker"
        entities[1].relationships[0].deleteRule = .deny
        entities[1].uniquenessConstraints.reverse()
        let changed = try ObjectModel(entities: entities)
        #expect(changed != base)
        #expect(changed.versionHash == base.versionHash)
        #expect(changed.firstStoredShapeDifference(from: base) == nil)
    }

    /// Each stored change, the words that name it, and a changed hash.
    @Test(arguments: [
        ("attribute type", "entity Employee: attribute salary is Integer 64 in the store, Integer 32 in the model"),
        ("optional", "entity Employee: attribute badge is required in the store, optional in the model"),
        ("indexed", "entity Employee: attribute badge is not indexed in the store, indexed in the model"),
        ("new attribute", "entity Employee: attribute age is in the model but not in the store"),
        ("transient becomes stored", "entity Employee: attribute onBreak is in the model but not in the store"),
        ("removed entity", "entity Manager is in the store but not in the model"),
        ("parent", "entity Manager: parent is Employee in the store, none in the model"),
        ("to-many", "entity Manager: relationship reports is to-many in the store, to-one in the model"),
        ("ordered", "entity Manager: relationship reports is unordered in the store, ordered in the model"),
        (
            "destination",
            "entity Manager: relationship reports points to Employee in the store, Department in the model"
        ),
        (
            "constraint",
            "entity Employee: uniqueness constraints are (badge), (department, salary) in the store, "
                + "(badge) in the model"
        ),
        (
            "index",
            "entity Employee: fetch index bySalary is (salary descending, badge ascending) in the store, "
                + "(salary ascending, badge ascending) in the model"
        ),
    ])
    func storedChangeIsNamedAndChangesTheHash(change: String, words: String) throws {
        let store = try ObjectModel(entities: companyEntities())
        var e = companyEntities()
        switch change {
        case "attribute type": e[1].attributes[0].type = .integer32
        case "optional": e[1].attributes[1].isOptional = true
        case "indexed": e[1].attributes[1].isIndexed = true
        case "new attribute": e[1].attributes.append(.init(name: "age", type: .integer16))
        case "transient becomes stored": e[1].attributes[2].isTransient = false
        case "removed entity": e.removeLast()
        case "parent": e[2].parent = nil
        case "to-many": e[2].relationships[0].isToMany = false
        case "ordered": e[2].relationships[0].isOrdered = true
        case "destination": e[2].relationships[0].destination = "Department"
        case "constraint": e[1].uniquenessConstraints = [["badge"]]
        case "index": e[1].fetchIndexes[0].elements[0].isAscending = true
        default: Issue.record("unknown change \(change)")
        }
        let model = try ObjectModel(entities: e)
        #expect(model.firstStoredShapeDifference(from: store) == words)
        #expect(model.versionHash != store.versionHash)
    }

    @Test func hashIsTheSameOnEveryRun() throws {
        let hashes = try (0..<5).map { _ in try ObjectModel(entities: companyEntities()).versionHash }
        #expect(Set(hashes).count == 1)
        #expect(hashes[0].count == 64)
    }

    /// Across the fixture versions, equal hashes and "no difference" go together.
    @Test(.enabled(if: ModelFixtures.shouldRun, ModelFixtures.skipReason))
    func hashAndDifferenceAgreeAcrossFixtureVersions() throws {
        var models: [ObjectModel] = []
        for version in ["SampleModel", "SampleModel2", "SampleModel3"] {
            guard let model = try ModelFixtures.load("SampleModel.xcdatamodeld", version: version)?.model else {
                return
            }
            models.append(model)
        }
        for a in models {
            for b in models {
                #expect((a.versionHash == b.versionHash) == (a.firstStoredShapeDifference(from: b) == nil))
            }
        }
        #expect(
            models[1].firstStoredShapeDifference(from: models[0])
                == "entity Car: attribute color is in the store but not in the model")
        #expect(
            models[2].firstStoredShapeDifference(from: models[1])
                == "entity Car: attribute maker is in the store but not in the model")
    }
}
