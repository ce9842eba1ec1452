// The convergence campaign's workload, run by each replica process (`cadmium-sync-replica`): a
// seeded random mix over a small set of objects, so that replicas often edit the same property,
// delete what another edits, and change the same relationships. Each step is one local commit;
// after some steps the replica syncs (and tolerates the server being away).
//
// The invariant a replica checks after every sync: the notes a transaction created as a pair
// ("pair <k> a" and "pair <k> b", never deleted) are both there or both missing, so no replica
// ever shows half of a transaction.

import CadmiumSync
import CdStoreTesting
import CdObjects
import Foundation

/// What a replica process did.
package struct CampaignCounts: Sendable, CustomStringConvertible {
    package var steps = 0
    package var syncs = 0
    package var failedSyncs = 0
    package var torn = 0
    /// Tags renamed (GI4 of GlobalID.swift).
    package var renames = 0
    package var description: String {
        "steps=\(steps) syncs=\(syncs) failed=\(failedSyncs) torn=\(torn) renames=\(renames)"
    }
}

package struct CampaignWorkload {
    let replica: TestReplica
    let index: Int
    var random: SplitMix64
    /// Tags this workload renamed so far.
    var renames = 0

    package init(replica: TestReplica, index: Int, seed: UInt64) {
        self.replica = replica
        self.index = index
        self.random = SplitMix64(seed: seed &* 1_000_003 &+ UInt64(index))
    }

    /// Runs `steps` steps, syncing after about one in three.
    package mutating func run(steps: Int, pause: Duration = .milliseconds(2)) async -> CampaignCounts {
        var counts = CampaignCounts()
        for _ in 0..<steps {
            do { try step() } catch {
                // A step may meet an object another replica's pull removed meanwhile: skip it.
            }
            counts.steps += 1
            if Int.random(in: 0..<3, using: &random) == 0 {
                counts.syncs += 1
                do {
                    try await replica.engine.syncNow()
                    if try !pairsAreWhole() { counts.torn += 1 }
                } catch {
                    counts.failedSyncs += 1
                }
            }
            try? await Task.sleep(for: pause)
        }
        counts.renames = renames
        return counts
    }

    /// Whether every pair of notes is whole (both or neither).
    package func pairsAreWhole() throws -> Bool {
        let titles = try replica.store.read { s in
            try s.fetchObjects(FetchRequest(entity: "Note")).compactMap { row -> String? in
                if case let .attribute(.string(t))? = row.values?["title"], t.hasPrefix("pair ") { return t }
                return nil
            }
        }
        var halves: [String: Int] = [:]
        for t in titles { halves[String(t.dropLast(2)), default: 0] += 1 }
        return halves.values.allSatisfy { $0 == 2 }
    }

    // MARK: - Steps

    private mutating func step() throws {
        let notes = try ids("Note").filter { !isPair($0) }
        let tags = try ids("Tag")
        let folders = try ids("Folder")
        switch Int.random(in: 0..<20, using: &random) {
        case 0..<3:
            var values: [String: PropertyValue] = ["title": .attribute(.string("r\(index) \(random.next() % 1000)"))]
            if let f = folders.randomElement(using: &random), Bool.random(using: &random) {
                values["folder"] = .toOne(f)
            }
            values["tags"] = .toMany(Array(tags.shuffled(using: &random).prefix(Int.random(in: 0...2, using: &random))))
            try replica.create("Note", values)
        case 3..<7:
            guard let n = notes.randomElement(using: &random) else { return }
            try replica.update(n, ["title": .attribute(.string("t\(random.next() % 5)"))])
        case 7..<9:
            guard let n = notes.randomElement(using: &random) else { return }
            try replica.update(
                n,
                [
                    "body": .attribute(.string("b\(index)-\(random.next() % 100)")),
                    "rank": .attribute(.integer(Int64(random.next() % 10))),
                ])
        case 9..<11:
            guard let n = notes.randomElement(using: &random) else { return }
            try replica.delete(n)
        case 11..<13:
            guard let n = notes.randomElement(using: &random) else { return }
            try replica.update(n, ["folder": .toOne(folders.randomElement(using: &random))])
        case 13..<16:
            guard let n = notes.randomElement(using: &random), let t = tags.randomElement(using: &random) else {
                return
            }
            var delta = ToManyDelta()
            if Bool.random(using: &random) { delta.add(t) } else { delta.remove(t) }
            try replica.store.apply(ChangeSet(toManyDeltas: [n: ["tags": delta]]))
        case 16:
            let name = "tag\(random.next() % 6)"
            if try replica.find("Tag", "name", name).isEmpty {
                try replica.create("Tag", ["name": .attribute(.string(name))])
            }
        case 17:
            if folders.count < 3 {
                try replica.create("Folder", ["name": .attribute(.string("f\(index)-\(random.next() % 100)"))])
            } else if let f = folders.randomElement(using: &random) {
                try replica.delete(f)
            }
        case 18:
            guard let t = tags.randomElement(using: &random) else { return }
            if Int.random(in: 0..<3, using: &random) == 0 {
                try replica.delete(t)
            } else if Bool.random(using: &random) {
                // A rename: the tag takes the global ID of its new name (GI4 of GlobalID.swift).
                let name = "tag\(random.next() % 6)"
                if try replica.find("Tag", "name", name).isEmpty {
                    try replica.update(t, ["name": .attribute(.string(name))])
                    renames += 1
                }
            }
        default:
            let k = "pair \(index)-\(random.next() % 1_000_000)"
            let ids = try replica.store.newObjectIDs(entity: "Note", count: 2)
            try replica.store.apply(
                ChangeSet(inserted: [
                    ids[0]: ["title": .attribute(.string(k + " a"))], ids[1]: ["title": .attribute(.string(k + " b"))],
                ]))
        }
    }

    private func ids(_ entity: String) throws -> [ObjectID] {
        try replica.store.read { try $0.fetchIDs(FetchRequest(entity: entity)) }.sorted()
    }

    private func isPair(_ id: ObjectID) -> Bool {
        let value: PropertyValue?? = try? replica.store.read { try $0.values(of: id)?["title"] }
        guard case let .attribute(.string(t))?? = value else { return false }
        return t.hasPrefix("pair ")
    }
}
