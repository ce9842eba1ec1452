import CdStore
import CdStoreTesting
import Testing

/// `CrashPointSample` (CP1–CP3): the short form of a crash sweep still tries every kind of point at
/// its first and last occurrence, chooses only candidates, and replays from its seed.
@Suite struct CrashPointSampleTests {
    /// 100 points of three kinds: "a" on 1…10, "b" on the even points above 10, "c" on the odd ones.
    static let candidates: [(point: Int, kind: String)] = (1...100).map { point in
        (point, point <= 10 ? "a" : point % 2 == 0 ? "b" : "c")
    }

    @Test(arguments: [1, 6, 20, 99])
    func everyKindAtItsFirstAndLastPointThenTheCount(count: Int) {
        let sample = CrashPointSample(Self.candidates, count: count, seed: 5)
        #expect(sample.kinds == ["a", "c", "b"])  // in order of first occurrence: 1, 11, 12
        for required in [1, 10, 12, 100, 11, 99] { #expect(sample.points.contains(required), "\(required)") }
        #expect(sample.points.count == max(count, 6))
        #expect(sample.points == sample.points.sorted() && Set(sample.points).count == sample.points.count)
        #expect(Set(sample.points).isSubset(of: Set(1...100)))
        #expect(sample.description == "\(max(count, 6)) of 100 points, 3 kinds, seed 5")
    }

    @Test func aCountOfAllCandidatesChoosesEveryPoint() {
        #expect(CrashPointSample(Self.candidates, count: 100, seed: 1).points == Array(1...100))
        #expect(CrashPointSample(Self.candidates, count: 5_000, seed: 1).points == Array(1...100))
    }

    @Test func theSameSeedReplaysTheSamePointsAndAnotherDrawsOthers() {
        let one = CrashPointSample(Self.candidates, count: 30, seed: 77).points
        #expect(CrashPointSample(Self.candidates, count: 30, seed: 77).points == one)
        #expect(CrashPointSample(Self.candidates, count: 30, seed: 78).points != one)
    }

    @Test func operationsThatChangeNothingAreOneKindPerPhase() throws {
        let fs = FaultInjectingFileSystem()
        let file = try fs.open("/data/x.cdstore-wal", mode: .createIfMissing)
        try [UInt8]([1, 2, 3]).withUnsafeBytes { try file.write($0, at: 0) }
        _ = try file.size()
        try file.sync()
        let kinds = fs.operationLog.map { CrashPointSample.kind(of: $0, phase: "commit") }
        #expect(
            kinds == [
                "commit: open x.cdstore-wal", "commit: write x.cdstore-wal", "commit: no change",
                "commit: sync x.cdstore-wal",
            ])
    }
}
