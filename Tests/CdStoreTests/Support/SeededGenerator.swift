// A reproducible random source for randomized tests (SplitMix64), and the seed plumbing: tests
// print their seed on failure and take one from the environment to replay it.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SplitMix64: small, fast, and the same sequence on every platform for a given seed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The seeds to run: the one in environment variable `name` when set, else `defaults`.
func testSeeds(_ name: String, defaults: [UInt64]) -> [UInt64] {
    if let text = getenv(name).map({ String(cString: $0) }), let seed = UInt64(text) { return [seed] }
    return defaults
}

/// An integer from the environment, else `fallback`.
func environmentInt(_ name: String, default fallback: Int) -> Int {
    getenv(name).map { String(cString: $0) }.flatMap { Int($0) } ?? fallback
}
