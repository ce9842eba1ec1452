import CdStore
import Foundation

/// How many threads the bench's Cadmium stores read with (`StoreOptions.readThreads`):
/// `CADMIUM_BENCH_READ_THREADS=n` sets it for every row; the scaling rows (`obj-range-1t`,
/// `obj-contains-2t`, …) set it in their own child process. Unset, a store reads with the
/// option's default (the processors online, at most 16). docs/BENCHMARKS.md, "Reads on several
/// threads".
enum BenchReadThreads {
    static let variable = "CADMIUM_BENCH_READ_THREADS"

    /// Sets the variable for this process (a child run of a scaling row).
    static func set(_ threads: Int) { setenv(variable, "\(threads)", 1) }

    static var threads: Int? { getenv(variable).flatMap { Int(String(cString: $0)) } }

    static func apply(to options: inout StoreOptions) {
        if let threads { options.readThreads = threads }
    }
}
