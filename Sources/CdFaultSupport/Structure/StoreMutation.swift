// Applying one hostile value to one field site and resealing the store around it: every checksum
// that covers the changed bytes is recomputed — except the mutated field itself when it is a
// checksum — so the change gets past the checksums and reaches the logic behind them.
//
// A field inside a logical page is written into the decoded page, and the image is re-encoded
// with the engine's compressor (deflate when the image was deflated, raw otherwise); in the page
// file the new image goes back into its extent when it fits, else to the end of the file (the
// header's data end follows), and its map entry gets the new offset, length and CRC copy; in the
// WAL it replaces the frame's payload, whose length field follows, and the frames after it move.
//
// Then, bottom-up: page file — each image's CRC, the map entries' CRC copies, each chunk's CRC,
// the directory's per-chunk CRCs, the active header's directory CRC, each valid header copy's
// CRC; WAL — the header CRC, each page frame's image CRC, and the chained frame CRCs from the
// header's on. Places come from the layout of the unmutated store, never from the mutated field,
// so a hostile offset or length does not move where resealing writes.

import CdStore

/// One (field site, hostile value) pair.
public struct StoreMutation: Sendable, CustomStringConvertible {
    public var site: StoreFieldSite
    public var value: HostileValue

    public init(site: StoreFieldSite, value: HostileValue) {
        self.site = site
        self.value = value
    }

    public var description: String { "\(site.id) = \(value)" }
}

extension StoreLayout {
    /// The store's files with every checksum the layout reaches recomputed: equal to `files`
    /// exactly when all of them are right.
    public func resealed() -> StoreFuzzInput { apply(nil) }

    /// The store's files with `mutation` applied and every covering checksum recomputed.
    public func apply(_ mutation: StoreMutation?) -> StoreFuzzInput {
        var pf = files.pageFile, wal = files.wal
        var frameOffsets = frames.map(\.offset), payloadLengths = frames.map(\.payloadLength)
        var imagePlaces = images.map(\.place)
        var exempt: (inWAL: Bool, range: Range<Int>)?
        var newDataEnd: UInt64?
        if let mutation {
            let site = mutation.site
            switch site.place {
            case .pageFile(let at):
                Self.write(mutation.value, into: &pf, at: at, length: site.length)
                exempt = (false, at..<(at + site.length))
            case .wal(let at):
                Self.write(mutation.value, into: &wal, at: at, length: site.length)
                exempt = (true, at..<(at + site.length))
            case let .page(index, at):
                guard var page = images[index].decoded else { break }
                Self.write(mutation.value, into: &page, at: at, length: site.length)
                let (bytes, offset, _) = imageBytes(images[index])
                let image = StructureImageCodec.reencode(header: Array(bytes[offset..<(offset + 24)]), page: page)
                switch images[index].place {
                case let .pageFile(entry, offset, length):
                    var target = offset
                    if roundUp(image.count) > roundUp(length) {
                        // To the file's end (not the header's data end, which a hostile value may
                        // have put anywhere).
                        target = roundUp(pf.count)
                        newDataEnd = UInt64(roundUp(target + image.count))
                    }
                    if pf.count < target + image.count {
                        pf += [UInt8](repeating: 0, count: target + image.count - pf.count)
                    }
                    pf.replaceSubrange(target..<(target + image.count), with: image)
                    putLE(&pf, entry, 8, UInt64(target))
                    putLE(&pf, entry + 8, 4, UInt64(image.count))
                    imagePlaces[index] = .pageFile(entry: entry, offset: target, length: image.count)
                case .wal(let frame):
                    let start = frameOffsets[frame] + 32
                    wal.replaceSubrange(start..<(start + payloadLengths[frame]), with: image)
                    putLE(&wal, frameOffsets[frame] + 16, 4, UInt64(image.count))
                    let delta = image.count - payloadLengths[frame]
                    payloadLengths[frame] = image.count
                    for k in (frame + 1)..<frames.count { frameOffsets[k] += delta }
                }
            }
        }
        func free(_ inWAL: Bool, _ at: Int, _ width: Int) -> Bool {
            guard let e = exempt, e.inWAL == inWAL else { return true }
            return !e.range.overlaps(at..<(at + width))
        }
        func seal(_ bytes: inout [UInt8], inWAL: Bool, at: Int, _ crc: UInt32) {
            if at + 4 <= bytes.count, free(inWAL, at, 4) { putLE(&bytes, at, 4, UInt64(crc)) }
        }

        // Page file, bottom-up.
        for place in imagePlaces {
            guard case let .pageFile(entry, offset, length) = place else { continue }
            seal(&pf, inWAL: false, at: offset + 20, Self.imageCRC(pf, at: offset, limit: offset + length))
            seal(&pf, inWAL: false, at: entry + 12, UInt32(le(pf, offset + 20, 4)!))
        }
        for c in chunks {
            let crc = Checksum.crc32(
                pf[(c.offset + 16)..<(c.offset + c.length)], seed: Checksum.crc32(pf[c.offset..<(c.offset + 12)]))
            seal(&pf, inWAL: false, at: c.offset + 12, crc)
            seal(&pf, inWAL: false, at: c.directoryEntry + 12, Checksum.crc32(pf[c.offset..<(c.offset + c.length)]))
        }
        if let h = activeHeader {
            if let newDataEnd, free(false, h + 56, 8) { putLE(&pf, h + 56, 8, max(newDataEnd, le(pf, h + 56, 8)!)) }
            if let d = directory {
                seal(&pf, inWAL: false, at: h + 52, Checksum.crc32(pf[d.offset..<(d.offset + d.length)]))
            }
        }
        for slot in validHeaders { seal(&pf, inWAL: false, at: slot + 124, Checksum.crc32(pf[slot..<(slot + 124)])) }

        // WAL: header, then the chain.
        if walHeaderValid {
            seal(&wal, inWAL: true, at: 28, Checksum.crc32(wal[0..<28]))
            var chain = Checksum.crc32(wal[0..<28])
            for k in frames.indices {
                let f = frameOffsets[k], n = payloadLengths[k]
                if frames[k].kind == 1, n >= 24 {
                    seal(&wal, inWAL: true, at: f + 52, Self.imageCRC(wal, at: f + 32, limit: f + 32 + n))
                }
                chain = Checksum.crc32(
                    wal[(f + 32)..<(f + 32 + n)], seed: Checksum.crc32(wal[f..<(f + 24)], seed: chain))
                seal(&wal, inWAL: true, at: f + 24, chain)
            }
        }
        return StoreFuzzInput(pageFile: pf, wal: wal)
    }

    /// The CRC an image header at `at` should carry: bytes 0..<20, then its stored bytes (as
    /// many as its stored-length field claims, within `limit`).
    static func imageCRC(_ bytes: [UInt8], at: Int, limit: Int) -> UInt32 {
        let stored = Int(le(bytes, at + 16, 4) ?? 0)
        let end = max(at + 24, min(at + 24 + stored, limit, bytes.count))
        return Checksum.crc32(bytes[(at + 24)..<end], seed: Checksum.crc32(bytes[at..<(at + 20)]))
    }

    static func write(_ value: HostileValue, into bytes: inout [UInt8], at: Int, length: Int) {
        switch value {
        case .integer(let v): putLE(&bytes, at, length, v)
        case .fill(let b): for i in at..<(at + length) { bytes[i] = b }
        case .flipFirst: bytes[at] ^= 1
        }
    }

    private func roundUp(_ n: Int) -> Int { (n + 63) / 64 * 64 }
}
