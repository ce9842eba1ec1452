// The object-level mutation campaign: a small valid company store, changed one stored value at a
// time through the engine (every checksum right, so only the object layer can tell), and every
// mutant through the verifier with object checks and through `ObjectStore.open` plus a read of
// every object and relationship. Each must end in a typed error or a clean read, the verifier
// must report rather than throw, and damage the object store finds the verifier must find too
// (`HostileOutcome.expectKeptTheRules`).
//
// The deterministic part mutates every entry of every `cd.` tree: keys and values truncated,
// extended, flipped, overwritten with hostile integers (0, 1, max − 1, max, values whose sums
// overflow), primary keys turned into self-references and IDs of missing objects, entity codes
// into other entities', and the stored model rewritten with each relationship and attribute made
// transient in turn. The seeded part splices random bytes and hostile integers into random
// entries; it prints its seed and replays one from `CADMIUM_SEED`.

import CdStore
import CdStoreTesting
import Foundation
import Testing
@testable import CdObjects

/// One mutant: which entry changed and how, and the replacement (nil: the entry is deleted);
/// `also` are entries of the same tree put with it (a stored model's matching hash).
struct Mutation: Sendable, CustomStringConvertible {
    var tree: String
    var key: [UInt8]
    var how: String
    var replacement: (key: [UInt8], value: [UInt8])?
    var also: [(key: [UInt8], value: [UInt8])] = []

    var description: String { "\(tree) key \(key.map { String(format: "%02x", $0) }.joined()): \(how)" }
}

enum MutationCatalog {
    /// Hostile unsigned integers: 0, 1, max − 1, max of each width, and values whose sum with a
    /// small count overflows (the top of the signed range, the sign bit alone).
    static let hostileIntegers: [UInt64] = [
        0, 1, 2, 0x7F, 0x80, UInt64(UInt32.max) - 1, UInt64(UInt32.max),
        UInt64(Int64.max) - 1, UInt64(Int64.max), UInt64(bitPattern: Int64.min),
        UInt64.max - 1, UInt64.max,
    ]

    static func varint(_ v: UInt64) -> [UInt8] { var out: [UInt8] = []; out.appendVarint(v); return out }
    static func u64BE(_ v: UInt64) -> [UInt8] { var out: [UInt8] = []; out.appendBE(v); return out }
    static func u64LE(_ v: UInt64) -> [UInt8] { var out: [UInt8] = []; out.appendLE(v); return out }

    /// Hostile primary keys: 0, 1, max − 1, max, a negative one, one no object has (999).
    static let hostileKeys: [UInt64] = [0, 1, UInt64(Int64.max) - 1, UInt64(Int64.max), UInt64.max, 999]

    /// Byte-level changes of a key: truncations (one of them to an index key's columns), an
    /// extension, its first and last byte flipped.
    static func keyMutations(_ bytes: [UInt8]) -> [(String, [UInt8])] {
        var out: [(String, [UInt8])] = []
        // count − 8: an index key's columns without its primary key.
        for n in Set([1, bytes.count - 8, bytes.count - 1]).sorted() where n > 0 && n < bytes.count {
            out.append(("truncated to \(n)", Array(bytes.prefix(n))))
        }
        out.append(("extended by 00", bytes + [0]))
        for i in Set([0, bytes.count - 1]).sorted() where i >= 0 {
            var b = bytes; b[i] ^= 0xFF; out.append(("byte \(i) flipped", b))
        }
        return out
    }

    /// Byte-level changes of a value: truncations, extensions, flips at a bounded set of offsets,
    /// and hostile varints spliced in at the first offsets.
    static func byteMutations(_ bytes: [UInt8]) -> [(String, [UInt8])] {
        var out: [(String, [UInt8])] = []
        for n in Set([0, bytes.count / 2, max(bytes.count - 1, 0)]).sorted() where n < bytes.count {
            out.append(("truncated to \(n)", Array(bytes.prefix(n))))
        }
        out.append(("extended by 00", bytes + [0]))
        out.append(("extended by ff ff", bytes + [0xFF, 0xFF]))
        var offsets = Array(0..<min(bytes.count, 8))
        if bytes.count > 8 {
            offsets += stride(from: 8, to: bytes.count, by: max(1, bytes.count / 4)) + [bytes.count - 1]
        }
        for i in Set(offsets).sorted() {
            var b = bytes; b[i] ^= 0xFF; out.append(("byte \(i) flipped", b))
            if i < 2 { var c = bytes; c[i] ^= 0x01; out.append(("byte \(i) low bit flipped", c)) }
        }
        for i in Set([0, 1].filter { $0 < bytes.count }) {
            for v in [UInt64(0), UInt64(Int64.max), UInt64.max] {
                out.append(
                    ("varint \(v) spliced at \(i)", Array(bytes.prefix(i)) + varint(v) + Array(bytes.dropFirst(i + 1))))
            }
        }
        return out
    }

    /// The deterministic mutants of a store with `entries`, under `model`. Every entry is deleted;
    /// every `cd.meta` entry, the first entry of each index and relationship tree and the first
    /// record of each entity get every other change (the rest repeat their shapes).
    static func all(_ entries: [String: [(key: [UInt8], value: [UInt8])]], model: ObjectModel) throws -> [Mutation] {
        let layout = StoreLayout(model: model)
        let codes = layout.byCode.map { UInt64($0.code) } + [UInt64(layout.byCode.count), UInt64.max]
        var out: [Mutation] = []
        for (tree, list) in entries.sorted(by: { $0.key < $1.key }) where tree.hasPrefix("cd.") {
            var shapes = Set<[UInt8]>()
            for (key, value) in list {
                out.append(Mutation(tree: tree, key: key, how: "deleted", replacement: nil))
                // A record's shape is its entity (the code after the version byte); an index or
                // relationship tree has one shape.
                guard
                    tree == StoreLayout.metaTree
                        || shapes.insert(tree.hasPrefix("cd.rec.") ? Array(value.prefix(2)) : []).inserted
                else { continue }
                func add(_ how: String, key newKey: [UInt8]? = nil, value newValue: [UInt8]? = nil) {
                    out.append(
                        Mutation(tree: tree, key: key, how: how, replacement: (newKey ?? key, newValue ?? value)))
                }
                if tree == StoreLayout.metaTree {
                    if key == StoreLayout.metaModelKey {
                        for (how, json) in try hostileModels(value) {
                            add(how, value: json)
                            // With its own hash, so that open decodes it to name the difference.
                            guard let hostile = try? JSONDecoder().decode(ObjectModel.self, from: Data(json)) else {
                                continue
                            }
                            out.append(
                                Mutation(
                                    tree: tree, key: key, how: how + ", hash to match", replacement: (key, json),
                                    also: [(StoreLayout.metaHashKey, Array(hostile.versionHash.utf8))]))
                        }
                        for how in ["{}", "[]", "{\"entities\":[]}", "null"] {
                            add("model \(how)", value: Array(how.utf8))
                        }
                        add("model truncated", value: Array(value.prefix(value.count / 2)))
                    } else {
                        for (how, v) in byteMutations(value) { add("value \(how)", value: v) }
                        for v in hostileIntegers where value.count == 8 { add("value u64 LE \(v)", value: u64LE(v)) }
                        for v in Set(hostileIntegers.map { UInt32(truncatingIfNeeded: $0) }).sorted()
                        where value.count == 4 {
                            add("value u32 LE \(v)", value: Array(u64LE(UInt64(v)).prefix(4)))
                        }
                    }
                    continue
                }
                for (how, v) in byteMutations(value) { add("value \(how)", value: v) }
                for (how, k) in keyMutations(key) { add("key \(how)", key: k) }
                // Primary keys: the leading 8 bytes of record and relationship keys, the trailing
                // 8 of index keys.
                let pkRange = tree.hasPrefix("cd.idx.") ? (key.count - 8)..<key.count : 0..<min(8, key.count)
                for v in hostileKeys {
                    var k = key; k.replaceSubrange(pkRange, with: u64BE(v));
                    add("primary key \(Int64(bitPattern: v))", key: k)
                }
                if tree.hasPrefix("cd.rel.") {
                    let ordered = key.count == 12
                    for code in codes {
                        // The target's entity code: the whole value of an unordered entry, the
                        // first varint of an ordered one.
                        var r = RecordReader(value)
                        _ = try? r.varint()
                        add("target entity code \(code)", value: varint(code) + Array(value.dropFirst(r.offset)))
                    }
                    let source = Array(key.prefix(8))
                    if ordered {
                        var r = RecordReader(value)
                        let code = (try? r.varint()) ?? 0
                        for v in hostileKeys + [source.readBE(UInt64.self, at: 0)] {
                            add("ordered target primary key \(Int64(bitPattern: v))", value: varint(code) + varint(v))
                        }
                        for p in [UInt32(0), 1, 7, UInt32.max] {
                            var k = source; k.appendBE(p); add("position \(p)", key: k)
                        }
                    } else {
                        add("target is the source", key: source + source)
                        for v in hostileKeys {
                            add("target primary key \(Int64(bitPattern: v))", key: source + u64BE(v))
                        }
                    }
                }
            }
        }
        return out
    }

    /// The stored model with one relationship, then one attribute, made transient (the stored
    /// hash left as it was), and with every relationship's inverse dropped.
    static func hostileModels(_ json: [UInt8]) throws -> [(String, [UInt8])] {
        guard var root = try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any],
            let entities = root["entities"] as? [[String: Any]]
        else { return [] }
        var out: [(String, [UInt8])] = []
        func encoded(_ entities: [[String: Any]]) throws -> [UInt8] {
            root["entities"] = entities
            return Array(try JSONSerialization.data(withJSONObject: root, options: [.sortedKeys]))
        }
        for (e, entity) in entities.enumerated() {
            for property in ["relationships", "attributes"] {
                for (p, description) in ((entity[property] as? [[String: Any]]) ?? []).enumerated() {
                    var changed = entities
                    var list = changed[e][property] as? [[String: Any]] ?? []
                    var d = description
                    d["isTransient"] = !((d["isTransient"] as? Bool) ?? false)
                    list[p] = d
                    changed[e][property] = list
                    out.append(
                        ("model: \(entity["name"] ?? "?").\(d["name"] ?? "?") transient toggled", try encoded(changed)))
                }
            }
        }
        return out
    }

    /// A random mutant: hostile bytes or integers spliced into a random entry's key or value.
    static func random(_ entries: [String: [(key: [UInt8], value: [UInt8])]], using rng: inout SplitMix64) -> Mutation {
        let trees = entries.keys.filter { $0.hasPrefix("cd.") && !(entries[$0] ?? []).isEmpty }.sorted()
        let tree = trees[Int(rng.next() % UInt64(trees.count))]
        let list = entries[tree] ?? []
        let (key, value) = list[Int(rng.next() % UInt64(list.count))]
        let inKey = tree != StoreLayout.metaTree && rng.next() % 3 == 0
        var bytes = inKey ? key : value
        var how: [String] = []
        for _ in 0..<(1 + rng.next() % 3) {
            let at = bytes.isEmpty ? 0 : Int(rng.next() % UInt64(bytes.count + 1))
            switch rng.next() % 5 {
            case 0 where !bytes.isEmpty:
                let i = min(at, bytes.count - 1); bytes[i] ^= UInt8(truncatingIfNeeded: rng.next() | 1);
                how.append("flip at \(i)")
            case 1:
                bytes = Array(bytes.prefix(at)); how.append("cut at \(at)")
            case 2:
                let v = hostileIntegers[Int(rng.next() % UInt64(hostileIntegers.count))]
                bytes.replaceSubrange(at..<min(bytes.count, at + 1), with: varint(v));
                how.append("varint \(v) at \(at)")
            case 3:
                let v = hostileIntegers[Int(rng.next() % UInt64(hostileIntegers.count))]
                bytes.replaceSubrange(at..<min(bytes.count, at + 8), with: rng.next() % 2 == 0 ? u64BE(v) : u64LE(v));
                how.append("u64 \(v) at \(at)")
            default:
                let n = Int(rng.next() % 4)
                bytes.insert(contentsOf: (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) }, at: at);
                how.append("\(n) random bytes at \(at)")
            }
        }
        if inKey && bytes.isEmpty { bytes = [0] }
        let replacement = inKey ? (bytes, value) : (key, bytes)
        return Mutation(
            tree: tree, key: key, how: (inKey ? "key " : "value ") + how.joined(separator: ", "),
            replacement: replacement)
    }
}

@Suite("Object-level mutation campaign")
struct ObjectMutationCampaignTests {
    static func runMutants(
        _ mutants: [Mutation], base: StoreImage, model: ObjectModel
    ) throws -> (problems: Int, typedErrors: Int) {
        var found = 0, typed = 0
        for m in mutants {
            let image = try base.replacing(tree: m.tree, key: m.key, with: m.replacement, also: m.also)
            let outcome = HostileProbe.run(image, model: model)
            outcome.expectKeptTheRules(m.description)
            if outcome.problems?.isEmpty == false { found += 1 }
            if outcome.objectError != nil { typed += 1 }
        }
        return (found, typed)
    }

    @Test func everyEntryMutatedEndsInATypedErrorOrAReport() throws {
        let start = Date()
        let model = try companyModel()
        let base = try StoreImage.company()
        let mutants = try MutationCatalog.all(try base.entries(), model: model)
        let (found, typed) = try Self.runMutants(mutants, base: base, model: model)
        print(
            "object mutation campaign: \(mutants.count) mutants, \(found) reported by the verifier, "
                + "\(typed) typed errors from the object store, "
                + "\(String(format: "%.1f", Date().timeIntervalSince(start))) s"
        )
        #expect(found > mutants.count / 2, "most single-value changes are damage the verifier sees")
    }

    @Test func seededRandomMutantsEndInATypedErrorOrAReport() throws {
        let start = Date()
        let seed =
            ProcessInfo.processInfo.environment["CADMIUM_SEED"].flatMap(UInt64.init)
            ?? UInt64.random(in: 1...UInt64(UInt32.max))
        print("object mutation campaign, random part: seed \(seed) (replay with CADMIUM_SEED=\(seed))")
        var rng = SplitMix64(seed: seed)
        let model = try companyModel()
        let base = try StoreImage.company()
        let entries = try base.entries()
        let mutants = (0..<150).map { _ in MutationCatalog.random(entries, using: &rng) }
        let (found, typed) = try Self.runMutants(mutants, base: base, model: model)
        print(
            "object mutation campaign, random part: \(mutants.count) mutants, \(found) reported, "
                + "\(typed) typed errors, \(String(format: "%.1f", Date().timeIntervalSince(start))) s"
        )
    }
}
