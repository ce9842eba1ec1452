import Foundation
import Testing
@testable import CdObjects
import CdStore
import CdStoreTesting

/// Random models and random mutations: the version hash and `firstStoredShapeDifference` must
/// agree (equal hashes ⇔ no difference), and a non-stored mutation must never change the hash.
/// The seed is printed; rerun one with `CD_MODEL_SEED=<seed> swift test --filter ModelShape`.
@Suite struct ModelShapeRandomizedTests {

    static let types: [AttributeType] = [
        .integer16, .integer32, .integer64, .decimal, .double, .float, .string,
        .boolean, .date, .binaryData, .uuid, .uri, .transformable(transformerName: nil),
    ]

    static func randomEntities(_ rng: inout SplitMix64) -> [EntityDescription] {
        let count = Int.random(in: 1...5, using: &rng)
        var entities: [EntityDescription] = []
        for i in 0..<count {
            var e = EntityDescription(name: "E\(i)")
            if i > 0 && Bool.random(using: &rng) { e.parent = "E\(Int.random(in: 0..<i, using: &rng))" }
            for j in 0..<Int.random(in: 0...4, using: &rng) {
                e.attributes.append(
                    .init(
                        name: "a\(i)_\(j)", type: types.randomElement(using: &rng)!,
                        isOptional: Bool.random(using: &rng), isTransient: Int.random(in: 0..<5, using: &rng) == 0,
                        isIndexed: Bool.random(using: &rng)))
            }
            if Bool.random(using: &rng) {
                e.relationships.append(
                    .init(
                        name: "r\(i)", destination: "E\(Int.random(in: 0..<count, using: &rng))",
                        isToMany: Bool.random(using: &rng), isOrdered: Bool.random(using: &rng)))
            }
            if let first = e.attributes.first(where: { !$0.isTransient }) {
                if Bool.random(using: &rng) { e.uniquenessConstraints.append([first.name]) }
                if Bool.random(using: &rng) {
                    e.fetchIndexes.append(
                        .init(
                            name: "i\(i)",
                            elements: [.init(property: first.name, isAscending: Bool.random(using: &rng))]))
                }
            }
            entities.append(e)
        }
        return entities
    }

    /// One random change; returns whether it touches the stored shape.
    static func mutate(_ entities: inout [EntityDescription], _ rng: inout SplitMix64) -> Bool {
        let i = Int.random(in: 0..<entities.count, using: &rng)
        switch Int.random(in: 0..<8, using: &rng) {
        case 0:
            entities[i].className += "X"; return false
        case 1:
            entities[i].userInfo["k"] = "v"; return false
        case 2:
            entities[i].isAbstract.toggle(); entities[i].renamingIdentifier = "Old\(i)"; return false
        case 3:
            guard !entities[i].attributes.isEmpty else { return false }
            entities[i].attributes[0].isOptional.toggle(); return !entities[i].attributes[0].isTransient
        case 4:
            entities[i].attributes.append(.init(name: "new\(i)", type: .date)); return true
        case 5:
            guard !entities[i].relationships.isEmpty else { return false }
            entities[i].relationships[0].isToMany.toggle(); return true
        case 6:
            guard !entities[i].attributes.isEmpty else { return false }
            entities[i].attributes[0].defaultValue = nil; entities[i].attributes[0].userInfo = ["a": "b"]; return false
        default:
            entities.shuffle(using: &rng); return false
        }
    }

    @Test func hashAndDifferenceAgreeOnRandomModels() throws {
        let seed =
            ProcessInfo.processInfo.environment["CD_MODEL_SEED"].flatMap(UInt64.init)
            ?? UInt64.random(in: 1...UInt64.max)
        print("ModelShapeRandomizedTests seed: \(seed)")
        var rng = SplitMix64(seed: seed)
        for round in 0..<200 {
            let original = Self.randomEntities(&rng)
            var changed = original
            let touchesShape = Self.mutate(&changed, &rng)
            let a = try ObjectModel(entities: original)
            let b = try ObjectModel(entities: changed)
            let sameHash = a.versionHash == b.versionHash
            let difference = b.firstStoredShapeDifference(from: a)
            #expect(sameHash == (difference == nil), "seed \(seed) round \(round): \(difference ?? "no difference")")
            #expect(
                sameHash == !touchesShape,
                "seed \(seed) round \(round): stored change \(touchesShape), same hash \(sameHash)")
        }
    }
}
