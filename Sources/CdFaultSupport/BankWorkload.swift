// The workload of the several-processes campaign: processes move money between accounts of one
// store, each transfer one commit, while they read the whole bank now and then.
//
// Commit `tag`-n (n ≥ 1) of the process tagged `tag`:
//  BK1. takes 1 to 9 from one account of tree "bank" and adds it to another: the sum of every
//       account stays `total`;
//  BK2. writes key "`tag`-n" of tree "log", so the checker can tell every acknowledged commit
//       is there.
// A reader that ever sums the bank to anything but `total` saw half of a commit, or two commits'
// pages mixed: the rule every kill, checkpoint and catching up must keep.

import CdStore

/// The bank of the several-processes campaign (BK1–BK2).
public enum BankWorkload {
    public static let accounts = 24
    public static let total = accounts * 1_000

    /// Full durability (an ACK is a durable commit) and a small checkpoint threshold, so kills land
    /// in checkpoints and WAL resets too; opens wait for the writer lock of a busy store.
    public static func options() -> StoreOptions {
        var o = StoreOptions()
        o.pageSize = 4096
        o.durability = .full
        o.cacheBytes = 4096 * 64
        o.checkpointThresholdBytes = 32 * 1024
        o.lockWaitSeconds = 5
        return o
    }

    static func key(_ account: Int) -> [UInt8] { Array("acct\(account)".utf8) }

    /// Creates the accounts when the store has none.
    public static func seed(_ store: Store) throws {
        try store.write { tx in
            guard try tx.tree("bank") == nil else { return }
            let bank = try tx.createTree("bank")
            for a in 0..<accounts { try bank.put(key(a), Array("1000".utf8)) }
            _ = try tx.createTree("log")
        }
    }

    /// One transfer (BK1) and its log entry (BK2), committed.
    public static func transfer<G: RandomNumberGenerator>(
        tag: String, number: Int, store: Store, rng: inout G
    )
        throws
    {
        let from = Int.random(in: 0..<accounts, using: &rng)
        let to = (from + Int.random(in: 1..<accounts, using: &rng)) % accounts
        let amount = Int.random(in: 1...9, using: &rng)
        try store.write { tx in
            guard let bank = try tx.tree("bank"), let log = try tx.tree("log") else {
                throw Violation(rule: "BK1", detail: "the bank's trees are missing")
            }
            let a = try balance(bank, from), b = try balance(bank, to)
            try bank.put(key(from), Array(String(a - amount).utf8))
            try bank.put(key(to), Array(String(b + amount).utf8))
            try log.put(Array("\(tag)-\(number)".utf8), Array(repeating: UInt8(number % 251), count: 40))
        }
    }

    static func balance(_ bank: Tree, _ account: Int) throws -> Int {
        guard let bytes = try bank.get(key(account)), let v = Int(String(decoding: bytes, as: UTF8.self)) else {
            throw Violation(rule: "BK1", detail: "account \(account) is missing or not a number")
        }
        return v
    }

    /// The sum of every account in `tx`'s snapshot; a violation when it is not `total` (BK1).
    public static func checkTotal(_ tx: Transaction) throws {
        guard let bank = try tx.tree("bank") else { return }
        var sum = 0, count = 0
        try bank.scan { _, v in
            sum += Int(String(decoding: v, as: UTF8.self)) ?? -1_000_000
            count += 1
            return true
        }
        guard sum == total, count == accounts else {
            throw Violation(
                rule: "BK1", detail: "snapshot \(tx.snapshot) sums \(count) accounts to \(sum), not \(total)")
        }
    }

    /// The log entries of `tag` numbered 1...`last` missing from `tx`'s snapshot (BK2).
    public static func missing(tag: String, upTo last: Int, in tx: Transaction) throws -> [Int] {
        guard last > 0 else { return [] }
        guard let log = try tx.tree("log") else { return Array(1...last) }
        return try (1...last).filter { try log.get(Array("\(tag)-\($0)".utf8)) == nil }
    }

    /// A broken rule of the workload.
    public struct Violation: Error, CustomStringConvertible {
        public let rule: String
        public let detail: String
        public var description: String { "\(rule): \(detail)" }
    }
}
