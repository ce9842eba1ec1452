// Pass 6: the free-page list (MetaPage M1, M2). Walks the trunks from the meta page's head —
// at most one step per page, so a cycle ends — validating each trunk, claiming trunks and listed
// pages (a page listed twice, or both listed and a trunk, is a problem), checking that a listed
// page has no image in the logical view, and that the count matches the meta page.

struct FreeListCheck: VerificationPass {
    let name = "free list"

    func run(_ context: VerificationContext) throws {
        guard let meta = context.metaPage else { return }
        var trunk = meta.freeListHead
        var trunks = 0
        var listed = 0
        var steps: UInt32 = 0
        var from = "the meta page"
        while trunk != .none {
            steps += 1
            guard steps < context.pageCount else {
                context.problem(
                    VerificationLocation(area: .freeList, page: trunk),
                    "the trunk chain is longer than the store: a cycle")
                break
            }
            let location = VerificationLocation(area: .freeList, page: trunk)
            guard trunk.rawValue >= 3, trunk.rawValue < context.pageCount else {
                context.problem(location, "\(from) links to trunk page \(trunk), outside 3..<\(context.pageCount)")
                break
            }
            guard context.claim(trunk.rawValue, .trunk) else { break }
            trunks += 1
            let buffer: PageBuffer
            do { buffer = try context.source.page(trunk) } catch {
                if case .corruption(_, _, let detail) = error as? StoreError, detail != alreadyReported {
                    context.problem(location, "free-list trunk: \(detail)")
                }
                break
            }
            let t = FreeListTrunk(page: buffer)
            if let why = t.validate(pageCount: context.pageCount) {
                context.problem(location, "free-list trunk: \(why)")
                break
            }
            for i in 0..<t.count {
                let p = t.entry(i)
                listed += 1
                guard context.claim(p.rawValue, .free) else { continue }
                if context.hasImage(p) {
                    context.problem(
                        VerificationLocation(area: .freeList, page: p),
                        "page is listed free (in trunk \(trunk)) but has an image (M2)")
                }
            }
            from = "trunk \(trunk)"
            trunk = t.next
        }
        if listed != Int(meta.freeCount) {
            context.problem(
                VerificationLocation(area: .freeList, page: MetaPage.number),
                "the meta page counts \(meta.freeCount) free pages, the trunks list \(listed)")
        }
        context.updateSummary { s in
            s.freePages = listed
            s.freeListTrunks = trunks
        }
    }
}
