// Pass 1: both copies of the page file header (FileHeader H1). The copy open would use (the valid
// one with the higher checkpoint sequence) drives the other passes; a damaged copy is a problem
// even when the other is good, because the next torn header write would then lose the store.
// A file with no header magic at all is not a store: an operational error, not a finding.

struct HeaderCheck: VerificationPass {
    let name = "header"

    func run(_ context: VerificationContext) throws {
        let size = context.fileSize
        guard size > 0 else { throw StoreError.notAStore(path: context.path, detail: "the file is empty") }
        var decoded: [(slot: Int, result: Result<FileHeader, FileHeader.Rejection>?, zero: Bool)] = []
        for (slot, offset) in FileHeader.slotOffsets.enumerated() {
            guard size >= offset + UInt64(FileHeader.size) else { decoded.append((slot, nil, false)); continue }
            let bytes = try context.file.readExactly(FileHeader.size, at: offset, location: .header(offset: offset))
            decoded.append((slot, FileHeader.decode(bytes), bytes.allSatisfy { $0 == 0 }))
        }
        let valid = decoded.compactMap { d -> (Int, FileHeader)? in
            if case .success(let h)? = d.result { return (d.slot, h) } else { return nil }
        }
        let hasMagic = decoded.contains { d in
            switch d.result {
            case .success?, .failure(.badChecksum)?, .failure(.unsupportedVersion)?, .failure(.badField)?: return true
            case .failure(.badMagic)?, nil: return false
            }
        }
        guard hasMagic else {
            throw StoreError.notAStore(path: context.path, detail: size < UInt64(FileHeader.size)
                                       ? "the file is only \(size) bytes" : "no Cadmium header magic")
        }
        if valid.isEmpty {
            for d in decoded { if case .failure(.unsupportedVersion(let v))? = d.result {
                throw StoreError.unsupportedFormatVersion(path: context.path, found: v, supported: FileHeader.formatVersion)
            } }
        }
        let best = valid.max { $0.1.checkpointSequence < $1.1.checkpointSequence }
        for d in decoded {
            let offset = FileHeader.slotOffsets[d.slot]
            let location = VerificationLocation(area: .header, offset: offset)
            switch d.result {
            case nil:
                context.problem(location, "the file (\(size) bytes) ends before header copy \(d.slot)")
            case .success:
                break
            case .failure(let why):
                if d.zero, let best, best.1.checkpointSequence == 1, best.0 != d.slot {
                    context.report(.note, location, "header copy \(d.slot) was never written (the store is new)")
                } else {
                    context.problem(location, "header copy \(d.slot) is damaged: \(describe(why))")
                }
            }
        }
        if valid.count == 2, valid[0].1.checkpointSequence == valid[1].1.checkpointSequence {
            context.problem(VerificationLocation(area: .header, offset: FileHeader.slotOffsets[1]),
                            "both header copies have checkpoint sequence \(valid[0].1.checkpointSequence)")
        }
        guard let (slot, header) = best else {
            context.problem(VerificationLocation(area: .header, offset: 0), "no valid header copy: nothing else can be checked")
            context.halted = true
            return
        }
        context.header = header
        context.lastCommit = header.commitSequence
        context.pageCount = header.pageCount
        context.updateSummary { s in
            s.formatVersion = FileHeader.formatVersion
            s.pageSize = Int(header.pageSize)
            s.headerCopy = slot
            s.checkpointSequence = header.checkpointSequence
            s.pageFileCommit = header.commitSequence.rawValue
            s.lastCommit = header.commitSequence.rawValue
            s.pageCount = header.pageCount
        }
        if size < FileHeader.dataStart {
            context.problem(VerificationLocation(area: .file), "the file is \(size) bytes, shorter than its header area of \(FileHeader.dataStart)")
        }
    }

    private func describe(_ r: FileHeader.Rejection) -> String {
        switch r {
        case .badMagic: return "bad magic"
        case .badChecksum: return "checksum mismatch"
        case .unsupportedVersion(let v): return "format version \(v), expected \(FileHeader.formatVersion)"
        case .badField(let text): return "invalid \(text)"
        }
    }
}
