@testable import CdFaultSupport
import Testing

/// The store fuzz targets' structure mode (`StructureFuzzInput`): a "CDSM" input chooses
/// mutations of a campaign store, applied with every checksum recomputed.
@Suite struct StructureFuzzInputTests {
    @Test func everySeedChoosesAMutationOfACampaignStore() throws {
        let bases = StructureFuzzInput.layouts.map(\.files)
        #expect(bases.count == CampaignStore.allCases.count)
        for walOnly in [false, true] {
            let seeds = StructureFuzzInput.seeds(walOnly: walOnly)
            #expect(seeds.count >= 20)
            for seed in seeds {
                let files = try #require(StructureFuzzInput.decode(seed, walOnly: walOnly))
                #expect(!bases.contains(files), "seed \(seed) changed nothing")
                if walOnly {
                    #expect(
                        files.pageFile == StructureFuzzInput.layouts[0].files.pageFile,
                        "the WAL target mutates the WAL only")
                }
            }
        }
    }

    @Test func stackedMutationsApplyInTurnAndOtherInputsAreNotStructureInputs() throws {
        // Store 1: site 0 (header copy A's magic) set to its first hostile value, 0; then site 0 of
        // the result — copy B's magic, copy A being invalid now — set to the raw value 0x5A.
        let input =
            StructureFuzzInput.magic + [1] + [0, 0, 0, 0, 0] + [UInt8](repeating: 0, count: 8)
            + [0, 0, 0, 0, 200] + [0x5A, 0, 0, 0, 0, 0, 0, 0]
        let files = try #require(StructureFuzzInput.decode(input))
        #expect(Array(files.pageFile[0..<8]) == [UInt8](repeating: 0, count: 8))
        #expect(Array(files.pageFile[4096..<4104]) == [0x5A, 0, 0, 0, 0, 0, 0, 0])
        #expect(StructureFuzzInput.decode(Array("CDFZ".utf8) + [UInt8](repeating: 0, count: 20)) == nil)
        #expect(StructureFuzzInput.decode(StructureFuzzInput.magic + [0]) == nil, "too short for one mutation")
    }

    /// Random structure inputs, three stacked mutations each (the later ones parsing the store the
    /// earlier ones made hostile), decode without a trap or a runaway allocation of the harness.
    @Test func randomStackedMutationsDecode() throws {
        let seed = testSeeds([0x5D5]).first!
        print("randomStackedMutationsDecode: seed \(seed) (replay with CADMIUM_SEED=\(seed))")
        var rng = FuzzRandom(seed: seed)
        for _ in 0..<100 {
            var input = StructureFuzzInput.magic + [UInt8.random(in: 0...2, using: &rng)]
            for _ in 0..<3 {
                input += (0..<13).map { _ in UInt8.random(in: 0...255, using: &rng) }
            }
            let files = try #require(StructureFuzzInput.decode(input, walOnly: Bool.random(using: &rng)))
            #expect(files.pageFile.count < 1 << 20, "a mutated campaign store stays small")
        }
    }
}
