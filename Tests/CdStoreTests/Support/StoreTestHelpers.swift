import Foundation
import Testing
@testable import CdStore

/// Reads every tree of the store into a model (a full scan through cursors).
func snapshotModel(_ tx: Transaction) throws -> StoreModel {
    var model = StoreModel()
    for name in try tx.treeNames() {
        var entries: [[UInt8]: [UInt8]] = [:]
        try tx.tree(name)!.scan { k, v in
            entries[k] = v; return true
        }
        model.trees[name] = entries
    }
    return model
}

/// The first difference between what the store holds and the model, in words, or nil.
func firstDifference(_ tx: Transaction, _ model: StoreModel) throws -> String? {
    let names = try tx.treeNames()
    if Set(names) != Set(model.trees.keys) { return "trees \(names.sorted()) ≠ model \(model.trees.keys.sorted())" }
    for name in names.sorted() {
        let expected = model.sortedEntries(name)
        let c = try tx.tree(name)!.cursor()
        var more = try c.first()
        var i = 0
        while more {
            guard i < expected.count else { return "tree \(name): extra key \(describe(c.key)) at position \(i)" }
            if c.key != expected[i].0 {
                return "tree \(name): key \(describe(c.key)) at position \(i), model has \(describe(expected[i].0))"
            }
            let v = try c.value()
            if v != expected[i].1 {
                return
                    "tree \(name): value of \(describe(c.key)) is \(describe(v)), model has \(describe(expected[i].1))"
            }
            i += 1
            more = try c.next()
        }
        if i != expected.count {
            return "tree \(name): \(i) keys, model has \(expected.count); first missing \(describe(expected[i].0))"
        }
    }
    return nil
}

/// A temporary directory removed at the end of the scope that owns it.
final class TemporaryDirectory {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("cadmium-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    deinit { try? FileManager.default.removeItem(at: url) }
}

func randomBytes(_ count: Int, _ rng: inout SeededGenerator) -> [UInt8] {
    (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
}

/// Key `i` of the numbered-key tests: "key-" and six digits, so keys sort as their numbers.
func numberedKey(_ i: Int) -> [UInt8] { Array("key-\(String(format: "%06d", i))".utf8) }

/// Commits `count` numbered keys with the values "base i" to a new tree "t", and returns the
/// model of what the store holds then.
func writeNumberedBase(_ store: Store, count: Int) throws -> StoreModel {
    var model = StoreModel()
    try store.write { tx in
        let t = try tx.createTree("t")
        for i in 0..<count {
            let v = Array("base \(i)".utf8)
            try t.put(numberedKey(i), v)
            model.trees["t", default: [:]][numberedKey(i)] = v
        }
    }
    return model
}
