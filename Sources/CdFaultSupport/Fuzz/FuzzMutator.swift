// A seeded mutation loop: the fuzzer of `make test` and of builds without libFuzzer. It mutates
// seed inputs the way libFuzzer's default mutators do — bit flips, byte sets, "interesting"
// integers (0, 0xFF…, 0x7F…, 0x80…) of 1, 2 and 4 bytes little-endian, truncation, erasing,
// duplicating and inserting runs, and splicing two seeds — several mutations per input, and
// feeds each result to the target. Same seed, same inputs.

import CdStore
import CdStoreTesting
import Foundation

/// The fuzzer's generator: the engine's SplitMix64, so a run reproduces from its seed.
public typealias FuzzRandom = SplitMix64

public enum FuzzMutator {
    static let interesting: [UInt64] = [
        0, 1, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF, 4096, 8192, 65536,
    ]

    /// One to four mutations of `input`; `others` supplies the second input of a splice.
    public static func mutate(_ input: [UInt8], others: [[UInt8]], rng: inout FuzzRandom) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...4, using: &rng) {
            if bytes.isEmpty { bytes = [UInt8.random(in: 0...255, using: &rng)]; continue }
            let at = Int.random(in: 0..<bytes.count, using: &rng)
            switch Int.random(in: 0..<9, using: &rng) {
            case 0: bytes[at] ^= 1 << UInt8.random(in: 0..<8, using: &rng)
            case 1: bytes[at] = UInt8.random(in: 0...255, using: &rng)
            case 2:
                let width = [1, 2, 4][Int.random(in: 0..<3, using: &rng)]
                let value = interesting[Int.random(in: 0..<interesting.count, using: &rng)]
                for i in 0..<width where at + i < bytes.count {
                    bytes[at + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))
                }
            case 3: bytes.removeLast(Int.random(in: 0...(bytes.count - at), using: &rng))
            case 4: bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...64, using: &rng)))
            case 5:
                let run = bytes[at..<min(bytes.count, at + Int.random(in: 1...64, using: &rng))]
                bytes.insert(contentsOf: run, at: Int.random(in: 0...bytes.count, using: &rng))
            case 6:
                let run = (0..<Int.random(in: 1...16, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                bytes.insert(contentsOf: run, at: at)
            case 7:
                // Splice: this input's head, another's tail.
                if let other = others.randomElement(using: &rng), !other.isEmpty {
                    let from = Int.random(in: 0..<other.count, using: &rng)
                    bytes = Array(bytes[..<at]) + other[from...]
                }
            default:
                // Copy a run over another place (structure moved inside the input).
                let length = min(Int.random(in: 1...32, using: &rng), bytes.count - at)
                let to = Int.random(in: 0..<bytes.count, using: &rng)
                let run = Array(bytes[at..<(at + length)])
                for (i, b) in run.enumerated() where to + i < bytes.count { bytes[to + i] = b }
            }
        }
        return bytes
    }
}

/// What a mutation run did.
public struct FuzzRunResult: Sendable {
    public var executions = 0
    /// Inputs that broke the target's rule, with what broke.
    public var findings: [(input: [UInt8], message: String)] = []
}

extension FuzzTarget {
    /// Runs every seed, then `iterations` mutated inputs; stops collecting after `maxFindings`.
    /// `saveEachInputTo`, when set, receives every input before it runs, so that a trap (which
    /// ends the process before a finding can be returned) leaves its input behind.
    public func mutationRun(
        seeds: [[UInt8]], iterations: Int, seed: UInt64, maxFindings: Int = 5,
        saveEachInputTo: URL? = nil
    ) -> FuzzRunResult {
        var rng = FuzzRandom(seed: seed)
        var result = FuzzRunResult()
        func execute(_ input: [UInt8]) {
            if let saveEachInputTo { try? Data(input).write(to: saveEachInputTo) }
            result.executions += 1
            if let message = run(input), result.findings.count < maxFindings {
                result.findings.append((input, message))
            }
        }
        for s in seeds { execute(s) }
        for _ in 0..<iterations {
            let base = seeds[Int.random(in: 0..<seeds.count, using: &rng)]
            execute(FuzzMutator.mutate(base, others: seeds, rng: &rng))
        }
        return result
    }
}
