// A seeded campaign of single-byte flips over a whole store — both header copies, page images,
// the map, free extents, padding and the WAL. A flip in bytes the store uses (every one of them
// covered by a checksum) must be reported as a problem; a flip in bytes nothing reads (free
// extents, granule and header padding, reserved WAL frame bytes) must not be. Nothing may crash.
// Replay one run with CD_VERIFY_SEED=<seed>; CD_VERIFY_FLIPS sets the flips per seed.

import Testing
@testable import CdStore

@Suite struct VerifyRandomFlipCampaignTests {
    /// The byte ranges of each file that hold live, checksummed content.
    static func usedRanges(_ files: StoreFiles) throws -> (pageFile: [Range<Int>], wal: [Range<Int>]) {
        let a = try StoreAnatomy(files)
        var file: [Range<Int>] = FileHeader.slotOffsets.map { Int($0)..<Int($0) + FileHeader.size }
        for e in a.map where e.isPresent { file.append(Int(e.offset)..<Int(e.offset) + Int(e.length)) }
        for c in a.chunks { file.append(Int(c.offset)..<Int(c.offset) + Int(c.length)) }
        file.append(Int(a.header.directoryOffset)..<Int(a.header.directoryOffset) + Int(a.header.directoryLength))
        var wal: [Range<Int>] = [0..<WALLayout.headerSize]
        // Frame header bytes 28..<32 are reserved and covered by no checksum: not used.
        for c in a.scan?.commits ?? [] {
            for f in c.frames {
                let start = Int(f.payloadOffset) - WALLayout.frameHeaderSize
                wal.append(start..<start + 28)
                wal.append(Int(f.payloadOffset)..<Int(f.payloadOffset) + Int(f.payloadLength))
            }
            let commitStart = Int(c.endOffset) - WALLayout.frameHeaderSize - WALLayout.commitPayloadSize
            wal.append(commitStart..<commitStart + 28)
            wal.append(Int(c.endOffset) - WALLayout.commitPayloadSize..<Int(c.endOffset))
        }
        return (file, wal)
    }

    @Test(arguments: testSeeds("CD_VERIFY_SEED", defaults: [0xC0FF_EE01, 0x5EED_0002]))
    func everyFlipInUsedBytesIsReportedAndNoneElsewhere(_ seed: UInt64) throws {
        print("VerifyRandomFlipCampaignTests seed \(seed) (replay with CD_VERIFY_SEED=\(seed))")
        let clean = try TestStores.build(.wal)
        let (fileUsed, walUsed) = try Self.usedRanges(clean)
        var rng = SeededGenerator(seed: seed)
        let flips = environmentInt("CD_VERIFY_FLIPS", default: 300)
        var used = 0, detected = 0, unused = 0, falseReports = 0
        var regions: [String: Int] = [:]
        for _ in 0..<flips {
            var files = clean
            let mask = UInt8.random(in: 1...255, using: &rng)
            let roll = Int.random(in: 0..<100, using: &rng)
            let inWAL = roll >= 70
            let size = inWAL ? files.wal.count : files.pageFile.count
            let offset =
                roll < 15
                ? Int.random(in: 0..<Int(FileHeader.dataStart), using: &rng)
                : inWAL
                    ? Int.random(in: 0..<size, using: &rng)
                    : Int.random(in: Int(FileHeader.dataStart)..<size, using: &rng)
            if inWAL { files.wal[offset] ^= mask } else { files.pageFile[offset] ^= mask }
            let isUsed = (inWAL ? walUsed : fileUsed).contains { $0.contains(offset) }
            regions[(inWAL ? "wal" : roll < 15 ? "header" : "data") + (isUsed ? " used" : " unused"), default: 0] += 1
            let report = try files.verify()
            let what = "\(inWAL ? "WAL" : "page file") offset \(offset) ^ \(mask) (seed \(seed))"
            if isUsed {
                used += 1
                if report.problemCount > 0 { detected += 1 }
                #expect(report.problemCount > 0, "flip at \(what) in used bytes was not reported")
            } else {
                unused += 1
                if report.problemCount > 0 { falseReports += 1 }
                #expect(
                    report.problemCount == 0,
                    "flip at \(what) in unused bytes was reported: \(report.problemsOnly.prefix(3))")
            }
        }
        print(
            "VerifyRandomFlipCampaignTests seed \(seed): \(flips) flips, "
                + "\(used) in used bytes (\(detected) detected), \(unused) in unused bytes (\(falseReports) reported); "
                + "\(regions.sorted { $0.key < $1.key })"
        )
        #expect(used > flips / 3 && unused > flips / 10, "the flips should cover used and unused bytes")
    }
}
