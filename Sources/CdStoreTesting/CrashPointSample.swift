// The crash points a sweep tries when trying all of them costs too much for `make test`: each kind
// of point at its first and its last occurrence, then a seeded sample of the others. The sweep
// names the kind of every candidate point (the phase of its workload, the operation, the file),
// so the short form still reaches every boundary the long one does; the long form (`make
// crash-test`) asks for more points, or for all of them.
//
// Invariants:
//  CP1. Every kind among the candidates is tried at its first and at its last point.
//  CP2. The chosen points are distinct candidates in ascending order: max(count, the points of CP1),
//       at most all candidates; a count of at least the number of candidates chooses all of them.
//  CP3. The same candidates, count and seed choose the same points (SplitMix64), so a failure
//       printed with its count and seed replays.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A seeded choice of crash points that covers every kind of point.
///
/// ```swift
/// let kinds = log.map { (point: $0.sequence, kind: "\($0.kind.rawValue) \($0.path)") }
/// let sample = CrashPointSample(kinds, count: 12, seed: 7)
/// print("sweep: \(sample)")                 // "12 of 240 points, 5 kinds, seed 7"
/// for point in sample.points { … }
/// ```
public struct CrashPointSample: Sendable, CustomStringConvertible {
    /// The chosen points, ascending (CP2).
    public let points: [Int]
    /// How many candidate points there were.
    public let candidateCount: Int
    /// The distinct kinds among the candidates, in order of first occurrence.
    public let kinds: [String]
    /// The count asked for.
    public let count: Int
    /// The seed of the sample.
    public let seed: UInt64

    /// Chooses `count` of `candidates` (each a point and the name of its kind): the first and the
    /// last point of each kind (CP1), then points drawn with `seed` from the rest (CP3).
    public init(_ candidates: [(point: Int, kind: String)], count: Int, seed: UInt64) {
        var firstAndLast: [String: (first: Int, last: Int)] = [:]
        var kinds: [String] = []
        for (point, kind) in candidates {
            if let seen = firstAndLast[kind] {
                firstAndLast[kind] = (min(seen.first, point), max(seen.last, point))
            } else {
                firstAndLast[kind] = (point, point)
                kinds.append(kind)
            }
        }
        let all = Set(candidates.map(\.point))
        var chosen = Set(firstAndLast.values.flatMap { [$0.first, $0.last] })  // CP1
        if count >= all.count {
            chosen = all
        } else {
            var rest = all.subtracting(chosen).sorted()
            var random = SplitMix64(seed: seed)
            while chosen.count < count, !rest.isEmpty {
                chosen.insert(rest.remove(at: Int.random(in: 0..<rest.count, using: &random)))
            }
        }
        self.points = chosen.sorted()
        self.candidateCount = all.count
        self.kinds = kinds
        self.count = count
        self.seed = seed
    }

    /// The kind of a crash at `operation` during `phase`: "big commit: write spill.cdstore-wal".
    /// Operations that change nothing on disk (read, size, lock, close) are one kind per phase,
    /// "phase: no change": a crash there leaves what the operation before it left.
    public static func kind(of operation: FileOperation, phase: String) -> String {
        switch operation.kind {
        case .read, .size, .lock, .close:
            return "\(phase): no change"
        default:
            let file = operation.path.split(separator: "/").last.map(String.init) ?? operation.path
            return "\(phase): \(operation.kind.rawValue) \(file)"
        }
    }

    /// "12 of 240 points, 5 kinds, seed 7".
    public var description: String {
        "\(points.count) of \(candidateCount) points, \(kinds.count) kinds, seed \(seed)"
    }

    /// An integer from environment variable `name`, else `fallback`: the number of points of a
    /// sweep, short in `make test`, long in `make crash-test`.
    public static func count(_ name: String, default fallback: Int) -> Int {
        environmentValue(name).flatMap { Int($0) }.map { max(1, $0) } ?? fallback
    }

    /// The seed from `CADMIUM_CRASH_SEED`, else `fallback`.
    public static func seed(default fallback: UInt64) -> UInt64 {
        environmentValue("CADMIUM_CRASH_SEED").flatMap { UInt64($0) } ?? fallback
    }

    private static func environmentValue(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
