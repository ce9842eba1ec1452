// Opt-in throughput check over the in-memory sink (BTREE_BENCH=1, best in release:
//   BTREE_BENCH=1 swift test -c release -Xswiftc -enable-testing --filter BTreeBenchmark).
// Loads keys in order and at random, reads them back at random, and prints the rates; the
// assertions check the results, not the times, so that it cannot fail on a busy machine.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import CdStore

@Suite(.enabled(if: getenv("BTREE_BENCH") != nil)) struct BTreeBenchmarkTests {
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        var start = timespec(), end = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        try body()
        clock_gettime(CLOCK_MONOTONIC, &end)
        return Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
    }

    @Test func bulkLoadAndRandomGets() throws {
        let count = environmentInt("BTREE_BENCH_KEYS", default: 1_000_000)
        let sink = InMemoryPageSink(pageSize: 4096)
        let tree = try BTree.create(in: sink)
        let value = [UInt8](repeating: 0x5A, count: 16)
        let load = try Self.seconds { for i in 0..<count { try tree.put(intKey(i), value, in: sink) } }
        var rng = SeededGenerator(seed: 5)
        let probes = (0..<count / 2).map { _ in Int.random(in: 0..<count, using: &rng) }
        var found = 0
        let gets = try Self.seconds { for i in probes where try tree.get(intKey(i), in: sink) != nil { found += 1 } }
        let random = InMemoryPageSink(pageSize: 4096)
        let randomTree = try BTree.create(in: random)
        let randomLoad = try Self.seconds { for i in probes { try randomTree.put(intKey(i), value, in: random) } }
        print(
            "bulk load \(count) keys: \(Int(Double(count) / load))/s, \(sink.liveCount) pages; "
                + "random gets: \(Int(Double(probes.count) / gets))/s; "
                + "random puts: \(Int(Double(probes.count) / randomLoad))/s, \(random.liveCount) pages"
        )
        #expect(found == probes.count)
        #expect(expectClean(tree, sink).entryCount == count)
    }
}
