import CdStore
import Foundation

/// How the bench's Cadmium stores are shared: `CADMIUM_BENCH_SHARING=exclusive` opens them as one
/// process's alone (`StoreSharing.exclusive`: an exclusive `flock` and no shared file), so that one
/// run with and one without it show what letting several processes share a store costs a process
/// that has it alone (docs/BENCHMARKS.md, "Several processes on one store").
enum BenchStoreSharing {
    static var exclusive: Bool { ProcessInfo.processInfo.environment["CADMIUM_BENCH_SHARING"] == "exclusive" }

    static func apply(to options: inout StoreOptions) {
        if exclusive { options.sharing = .exclusive }
    }
}
