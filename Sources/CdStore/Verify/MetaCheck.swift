// Pass 5: the meta page (MetaPage), page 1 of the logical view. It must decode, be written by the
// last commit (every commit rewrites it), and agree with the page count of the header or of the
// last WAL commit record. The page file's own meta page must agree with the header's page count.

struct MetaCheck: VerificationPass {
    let name = "meta page"

    func run(_ context: VerificationContext) throws {
        guard let header = context.header else { return }
        let location = VerificationLocation(area: .page, page: MetaPage.number)
        if context.lastCommit == CommitSequence(0) {
            context.report(
                .note, VerificationLocation(area: .file),
                "the store has no commit yet: it was created but never formatted")
            context.halted = true
            return
        }
        context.claim(MetaPage.number.rawValue, .meta)
        let buffer: PageBuffer
        do { buffer = try context.source.page(MetaPage.number) } catch {
            if context.operationalError != nil { return }
            if case .corruption(_, _, let detail) = error as? StoreError, detail != alreadyReported {
                context.problem(location, detail)
            }
            return
        }
        switch MetaPage.decode(buffer) {
        case .failure(let why):
            context.problem(location, "meta page: \(why)")
        case .success(let meta):
            context.metaPage = meta
            if meta.pageCount != context.pageCount {
                let from = context.walIndex.isEmpty ? "the header" : "the last WAL commit record"
                context.problem(location, "meta page counts \(meta.pageCount) pages, \(from) \(context.pageCount)")
            }
            if meta.commit != context.lastCommit {
                context.problem(
                    location, "meta page was written by commit \(meta.commit), the last commit is \(context.lastCommit)"
                )
            }
        }
        if !context.walIndex.isEmpty, let entry = context.map.count > 1 ? context.map[1] : nil, entry.isPresent,
            case .success(let (fileMeta, _))? = try? context.readImage(
                from: context.file, sourceSize: context.fileSize,
                offset: entry.offset, length: entry.length, page: MetaPage.number,
                commit: entry.commit, referenceCRC: entry.crc),
            case .success(let m) = MetaPage.decode(fileMeta), m.pageCount != header.pageCount
        {
            context.problem(
                VerificationLocation(area: .page, page: MetaPage.number, offset: entry.offset),
                "the page file's meta page counts \(m.pageCount) pages, its header \(header.pageCount)")
        }
    }
}
