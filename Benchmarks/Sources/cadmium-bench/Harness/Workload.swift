import ArgumentParser

// The engine-level workloads, their sizes, and what one run of one of them reports.

/// One engine-level workload. Each runs in a child process of its own (see ``Orchestrator``).
enum Workload: String, CaseIterable, Codable, ExpressibleByArgument, Sendable {
    /// Builds the read fixture (sequential load, checkpoint, close); not timed or reported.
    case prepare
    case loadSequential = "load-seq"
    case loadRandom = "load-rand"
    case getRandom = "get-rand"
    case getWarm = "get-warm"
    case scanFull = "scan-full"
    case scanRange = "scan-range"
    case commitDurable = "commit-durable"
    case commitDurable4 = "commit-durable-4"
    case commitDurable16 = "commit-durable-16"

    static let reported: [Workload] = [
        .loadSequential, .loadRandom, .getRandom, .getWarm, .scanFull, .scanRange, .commitDurable,
        .commitDurable4, .commitDurable16,
    ]

    var title: String {
        switch self {
        case .prepare: "prepare read fixture"
        case .loadSequential: "bulk load, sequential keys, 1 txn"
        case .loadRandom: "bulk load, random keys, 1 txn"
        case .getRandom: "random get, 1 read txn"
        case .getWarm: "random get, warm 256 MiB cache"
        case .scanFull: "full scan (key + value)"
        case .scanRange: "range scans of ~1% each"
        case .commitDurable: "single-key durable commits"
        case .commitDurable4: "single-key durable commits, 4 writer threads"
        case .commitDurable16: "single-key durable commits, 16 writer threads"
        }
    }

    /// What one operation is, for the unit column.
    var unit: String {
        switch self {
        case .commitDurable, .commitDurable4, .commitDurable16: "commits/s"
        case .scanFull, .scanRange: "rows/s"
        case .getRandom, .getWarm: "gets/s"
        default: "keys/s"
        }
    }

    /// Whether the workload reads the fixture that `.prepare` builds.
    var readsFixture: Bool { [.getRandom, .getWarm, .scanFull, .scanRange].contains(self) }

    /// The page cache of both systems: 64 MiB, or 256 MiB (enough for the whole decompressed
    /// 1M-key fixture) for the warm-cache variant.
    var cacheBytes: Int { self == .getWarm ? 256 << 20 : 64 << 20 }

    /// Durable (fsync per commit) or CPU-bound (no fsync) settings for both systems.
    var isDurable: Bool { writers > 0 }

    /// Threads committing at once in a durable-commit workload (0: not one).
    var writers: Int {
        switch self {
        case .commitDurable: 1
        case .commitDurable4: 4
        case .commitDurable16: 16
        default: 0
        }
    }
}

/// Sizes of one suite run.
struct Scale: Codable, Sendable {
    var keys: Int
    var gets: Int
    var rangeScans: Int
    var commits: Int

    static let full = Scale(keys: 1_000_000, gets: 200_000, rangeScans: 20, commits: 10_000)
    static let quick = Scale(keys: 20_000, gets: 20_000, rangeScans: 10, commits: 300)
    /// The smallest sizes that still run every workload's code (CI's check of a debug build): the figures mean nothing.
    static let smoke = Scale(keys: 1_000, gets: 1_000, rangeScans: 2, commits: 10)

    /// The operations a workload performs at this scale (for its throughput).
    func operations(_ w: Workload) -> Int {
        switch w {
        case .prepare, .loadSequential, .loadRandom, .scanFull: keys
        case .getRandom, .getWarm: gets
        case .scanRange: rangeScans * rangeLength
        case .commitDurable, .commitDurable4, .commitDurable16: commits
        }
    }

    /// Keys in one ~1% range scan.
    var rangeLength: Int { max(1, keys / 100) }
}

/// What one child run of one workload on one system measured.
struct RunResult: Codable, Sendable {
    /// Wall-clock seconds of the timed part.
    var seconds: Double
    /// Operations performed in the timed part.
    var operations: Int
    /// Bytes of the store's files after a checkpoint (loads only).
    var fileBytes: Int?
    /// Peak resident set of the child process (VmHWM), KiB.
    var peakRSSKiB: Int
    /// A checksum of what was read, so the reads cannot be optimized away and systems can be
    /// checked against each other.
    var checksum: UInt64
    /// Process CPU seconds (user + system, every thread) of the timed part, where measured (the
    /// object level's reads): beside `seconds` it shows how many cores a read kept busy.
    var cpuSeconds: Double?

    var throughput: Double { seconds > 0 ? Double(operations) / seconds : 0 }
}
