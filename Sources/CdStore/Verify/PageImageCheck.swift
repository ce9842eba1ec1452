// Pass 4: every page image the page map references (PageImage PI1–PI3): inside the file, CRC,
// page number and commit as the map entry says, decompressing to exactly one page whose type
// byte matches the header, and the map's copy of the CRC (a stale or misdirected write has a good
// CRC of its own but not the one the map expects). Images the WAL supersedes are checked too:
// they are what the page file holds should the WAL be lost. The logical versions are recorded
// (VerificationContext V2) for the tree walk.

struct PageImageCheck: VerificationPass {
    let name = "page images"

    func run(_ context: VerificationContext) throws {
        let total = context.map.count
        for n in context.map.indices {
            if n % 256 == 0 { context.progress(name, n, total) }
            guard n > 0, let entry = context.map[n], entry.isPresent else { continue }
            let page = PageNumber(UInt32(n))
            let result = try context.readImage(
                from: context.file, sourceSize: context.fileSize, offset: entry.offset,
                length: entry.length, page: page, commit: entry.commit, referenceCRC: entry.crc)
            let superseded = context.walIndex.lookup(page, atOrBefore: context.lastCommit) != nil
            if case .failure(let why) = result {
                let note = superseded ? " (the WAL holds a newer version)" : ""
                context.problem(
                    VerificationLocation(area: .page, page: page, offset: entry.offset),
                    "page-file image: \(why)\(note)")
            }
            if !superseded { context.recordLogical(page.rawValue, result) }
        }
        context.progress(name, total, total)
    }
}
