// Pass 1: both copies of the page file header (FileHeader FH1). The copy open would use (the valid
// one with the higher checkpoint sequence) drives the other passes; a damaged copy is a problem
// even when the other is good, because the next torn header write would then lose the store.
// A file with no header magic at all is not a store: an operational error, not a finding.

struct HeaderCheck: VerificationPass {
    let name = "header"

    func run(_ context: VerificationContext) throws {
        let size = context.fileSize
        guard size > 0 else { throw StoreError.notAStore(path: context.path, detail: "the file is empty") }
        let copies = try PageFileStructure.readHeaderCopies(context.file, fileSize: size)
        guard copies.contains(where: \.hasMagic) else {
            throw PageFileStructure.noUsableHeader(copies, path: context.path, fileSize: size)
        }
        let valid = copies.compactMap { c in c.header.map { (c.slot, $0) } }
        if valid.isEmpty {
            for c in copies {
                if case .failure(.unsupportedVersion)? = c.decoded {
                    throw PageFileStructure.noUsableHeader(copies, path: context.path, fileSize: size)
                }
            }
        }
        let best = PageFileStructure.current(of: copies)
        for c in copies {
            let location = VerificationLocation(area: .header, offset: c.offset)
            switch c.decoded {
            case nil:
                context.problem(location, "the file (\(size) bytes) ends before header copy \(c.slot)")
            case .success:
                break
            case .failure(let why):
                if c.isAllZero, let best, best.header.checkpointSequence == 1, best.slot != c.slot {
                    context.report(.note, location, "header copy \(c.slot) was never written (the store is new)")
                } else {
                    context.problem(location, "header copy \(c.slot) is damaged: \(why.text)")
                }
            }
        }
        if valid.count == 2, valid[0].1.checkpointSequence == valid[1].1.checkpointSequence {
            context.problem(
                VerificationLocation(area: .header, offset: FileHeader.slotOffsets[1]),
                "both header copies have checkpoint sequence \(valid[0].1.checkpointSequence)")
        }
        guard let (header, slot) = best else {
            context.problem(
                VerificationLocation(area: .header, offset: 0), "no valid header copy: nothing else can be checked")
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
            context.problem(
                VerificationLocation(area: .file),
                "the file is \(size) bytes, shorter than its header area of \(FileHeader.dataStart)")
        }
    }
}
