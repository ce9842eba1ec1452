// The workload of the process-crash campaign: numbered transactions whose every key and value is
// a function of the transaction number, so that a checker that knows only the last number a
// store holds can tell whether every transaction up to it is complete and none after it shows.
//
// Transaction n (n ≥ 1) writes, in one commit:
//  CW1. tree "a": keys "t<n>/0" ..< "t<n>/<k(n)>" with `value(n, i)` (some values overflow a page),
//       and "last" = n;
//  CW2. tree "b": key "t<n>" = `value(n, 99)` and "last" = n;
//  CW3. tree "a": deletes the keys of transaction n − `window`, so pages are freed and reused.
//
// After any crash, with L the number in "b"/"last" (0 when the trees do not exist):
//  - "a"/"last" = L (both trees carry the same number: a half-applied commit shows here);
//  - "b" holds "t<m>" for exactly m in 1...L, with the right values;
//  - "a" holds the keys of exactly the m in max(1, L − window + 1)...L, with the right values;
//  - nothing else.

import CdStore

/// The numbered-transaction workload shared by `cadmium-crash-child` and the test that kills it.
public enum CrashWorkload {
    /// Transactions older than this many are deleted from tree "a" (CW3).
    public static let window = 40

    /// How many keys transaction `n` writes to tree "a".
    public static func keyCount(_ n: Int) -> Int { 1 + n % 4 }

    public static func keyA(_ n: Int, _ i: Int) -> [UInt8] { Array("t\(n)/\(i)".utf8) }
    public static func keyB(_ n: Int) -> [UInt8] { Array("t\(n)".utf8) }
    public static let lastKey: [UInt8] = Array("last".utf8)

    /// The value of key `i` of transaction `n`: deterministic bytes; every 9th transaction's first
    /// value is 6 000 bytes, so overflow chains are written and freed too.
    public static func value(_ n: Int, _ i: Int) -> [UInt8] {
        let count = (n % 9 == 0 && i == 0) ? 6_000 : 16 + (n &* 31 &+ i &* 7) % 180
        var state = UInt64(truncatingIfNeeded: n) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(truncatingIfNeeded: i)
        var bytes = Array("txn \(n) item \(i) ".utf8)
        while bytes.count < count {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            bytes.append(UInt8(truncatingIfNeeded: state >> 33) % 26 + 97)
        }
        return Array(bytes.prefix(count))
    }

    static func encode(_ n: Int) -> [UInt8] { Array(String(n).utf8) }
    static func decode(_ bytes: [UInt8]?) -> Int? { bytes.flatMap { Int(String(decoding: $0, as: UTF8.self)) } }

    /// The store options of the campaign: full durability, small pages and a small checkpoint
    /// threshold, so kills land in checkpoints and WAL resets as well as in commits.
    public static func options() -> StoreOptions {
        var o = StoreOptions()
        o.pageSize = 4096
        o.durability = .full
        o.cacheBytes = 4096 * 64
        o.checkpointThresholdBytes = 48 * 1024
        return o
    }

    /// Applies transaction `n` (CW1–CW3) in one write transaction.
    public static func commit(_ n: Int, to store: Store) throws {
        try store.write { tx in
            let a = try tx.openOrCreateTree("a")
            let b = try tx.openOrCreateTree("b")
            for i in 0..<keyCount(n) { try a.put(keyA(n, i), value(n, i)) }
            try a.put(lastKey, encode(n))
            try b.put(keyB(n), value(n, 99))
            try b.put(lastKey, encode(n))
            let old = n - window
            if old >= 1 { for i in 0..<keyCount(old) { _ = try a.delete(keyA(old, i)) } }
        }
    }

    /// The last transaction number the store holds (0 for a new store).
    public static func lastNumber(in store: Store) throws -> Int {
        try store.read { tx in decode(try tx.tree("b")?.get(lastKey)) ?? 0 }
    }

    /// Checks the store against the rules at the top of this file and returns the last
    /// transaction number it holds, or throws `Violation` naming the first broken rule.
    public static func check(_ store: Store) throws -> Int {
        try store.read { tx in
            let names = try tx.treeNames()
            guard let b = try tx.tree("b") else {
                if !names.isEmpty { throw Violation("no tree \"b\" but trees \(names)") }
                return 0
            }
            guard let a = try tx.tree("a") else { throw Violation("tree \"b\" exists without tree \"a\"") }
            if Set(names) != ["a", "b"] { throw Violation("unexpected trees \(names)") }
            guard let last = decode(try b.get(lastKey)), last >= 1 else {
                throw Violation("\"b\"/last is missing or not a number")
            }
            let lastA = decode(try a.get(lastKey))
            if lastA != last {
                throw Violation(
                    "\"a\"/last is \(lastA.map(String.init) ?? "missing"), "
                        + "\"b\"/last is \(last): a transaction is partly visible"
                )
            }
            var expectedB: [[UInt8]: [UInt8]] = [lastKey: encode(last)]
            for m in 1...last { expectedB[keyB(m)] = value(m, 99) }
            var expectedA: [[UInt8]: [UInt8]] = [lastKey: encode(last)]
            for m in max(1, last - window + 1)...last {
                for i in 0..<keyCount(m) { expectedA[keyA(m, i)] = value(m, i) }
            }
            try compare(a, expectedA, last: last)
            try compare(b, expectedB, last: last)
            return last
        }
    }

    static func compare(_ tree: Tree, _ expected: [[UInt8]: [UInt8]], last: Int) throws {
        var seen = 0
        var failure: Violation?
        try tree.scan { k, v in
            guard let want = expected[k] else {
                failure = Violation(
                    "tree \"\(tree.name)\" holds unexpected key \(String(decoding: k, as: UTF8.self)) (last \(last))")
                return false
            }
            if want != v {
                failure = Violation(
                    "tree \"\(tree.name)\" key \(String(decoding: k, as: UTF8.self)): "
                        + "wrong value (\(v.count) bytes, expected \(want.count))"
                )
                return false
            }
            seen += 1
            return true
        }
        if let failure { throw failure }
        if seen != expected.count {
            throw Violation(
                "tree \"\(tree.name)\" holds \(seen) keys, expected \(expected.count) for last \(last): "
                    + "a transaction is missing or partly visible"
            )
        }
    }

    /// A broken workload rule.
    public struct Violation: Error, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }
}
