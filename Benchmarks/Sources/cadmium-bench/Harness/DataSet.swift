// The benchmark's data: 8-byte big-endian integer keys and ~120-byte text values (a name, an
// email and a ~100-character notes string), generated deterministically from a seed so that
// every system and every run stores the same bytes.
//
// Values come from a pool of 65,536 distinct strings built before timing starts; key `i` takes
// pool[mix(i) & 0xFFFF]. Repeats are therefore ~9 MB apart in key order, far outside zlib's
// 32 KiB window, so the pool does not flatter compression, and generating values costs nothing
// inside the timed loops.

/// SplitMix64: a small, fast, seedable generator (Steele et al., 2014).
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Keys, values and access orders for one scale.
struct DataSet {
    static let poolSize = 1 << 16
    let count: Int
    let values: [[UInt8]]

    init(count: Int, seed: UInt64 = 0xCAD_0001) {
        self.count = count
        var rng = SplitMix64(seed: seed)
        values = (0..<Self.poolSize).map { _ in Self.makeValue(&rng) }
    }

    /// The key of entry `i`: its index as 8 big-endian bytes, so byte order is numeric order.
    @inline(__always)
    static func key(_ i: Int) -> [UInt8] {
        withUnsafeBytes(of: UInt64(i).bigEndian) { Array($0) }
    }

    /// The value stored under key `i`.
    @inline(__always)
    func value(_ i: Int) -> [UInt8] { values[Self.poolIndex(i)] }

    @inline(__always)
    static func poolIndex(_ i: Int) -> Int {
        var z = UInt64(i) &* 0x9E37_79B9_7F4A_7C15
        z ^= z >> 29
        return Int(z & UInt64(poolSize - 1))
    }

    /// 0..<count in a seeded random order.
    func shuffledIndices(seed: UInt64) -> [Int] {
        var rng = SplitMix64(seed: seed)
        return Array(0..<count).shuffled(using: &rng)
    }

    /// `n` indices drawn uniformly from 0..<bound.
    static func randomIndices(_ n: Int, below bound: Int, seed: UInt64) -> [Int] {
        var rng = SplitMix64(seed: seed)
        return (0..<n).map { _ in Int(rng.next() % UInt64(bound)) }
    }

    // MARK: - Realistic text

    static let firstNames = [
        "Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "Frances", "John", "Margaret",
        "Dennis", "Ken", "Radia", "Leslie", "Niklaus", "Tony", "Hedy", "Katherine", "Linus",
        "Guido", "Bjarne", "Sophie", "Tim", "Vint", "Whitfield", "Shafi", "Silvio", "Judea",
        "Yann", "Fei-Fei", "Ivan", "Jean", "Kristen", "Ole-Johan", "Peter", "Robin", "Dana",
    ]
    static let lastNames = [
        "Lovelace", "Turing", "Hopper", "Dijkstra", "Liskov", "Knuth", "Allen", "McCarthy",
        "Hamilton", "Ritchie", "Thompson", "Perlman", "Lamport", "Wirth", "Hoare", "Lamarr",
        "Johnson", "Torvalds", "van Rossum", "Stroustrup", "Wilson", "Berners-Lee", "Cerf",
        "Diffie", "Goldwasser", "Micali", "Pearl", "LeCun", "Li", "Sutherland", "Sammet",
        "Nygaard", "Dahl", "Naur", "Milner", "Scott",
    ]
    static let domains = ["example.com", "mail.example.org", "corp.example.net", "uni.example.edu", "example.io"]
    static let words = [
        "quarterly", "review", "meeting", "scheduled", "with", "the", "design", "team", "about",
        "storage", "migration", "prefers", "remote", "work", "on", "Fridays", "mentor", "for",
        "new", "hires", "in", "platform", "group", "speaks", "French", "and", "German", "leads",
        "incident", "response", "rotation", "budget", "approved", "travel", "to", "Lisbon",
        "conference", "talk", "accepted", "needs", "laptop", "replacement", "before", "March",
        "certified", "first", "aid", "volunteer", "coordinator", "parental", "leave", "until",
        "September", "promotion", "candidate", "owns", "billing", "service", "reports", "to",
        "director", "of", "engineering", "part-time", "contract", "renewal", "pending",
    ]

    static func makeValue(_ rng: inout SplitMix64) -> [UInt8] {
        func pick(_ a: [String]) -> String { a[Int(rng.next() % UInt64(a.count))] }
        let first = pick(firstNames), last = pick(lastNames)
        let number = rng.next() % 10_000
        let email = "\(first.lowercased()).\(last.lowercased().replacingSpaces())\(number)@\(pick(domains))"
        var notes = ""
        let target = 90 + Int(rng.next() % 21)
        while notes.utf8.count < target {
            if !notes.isEmpty { notes += " " }
            notes += pick(words)
        }
        return Array("\(first) \(last)|\(email)|\(notes)".utf8)
    }
}

private extension String {
    func replacingSpaces() -> String { String(map { $0 == " " ? "-" : $0 }) }
}
