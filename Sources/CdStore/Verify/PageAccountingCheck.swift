// Pass 8: every page below the page count is accounted for exactly once (MetaPage M1; SQLite's
// "never used", bbolt's "unreachable unfreed"): the meta page, a tree page, a free-list trunk or
// a listed free page. Claims were made by the earlier passes (a second claim was reported there);
// what is left unclaimed leaked. Runs of leaked pages are reported as one problem. Also fills in
// the statistics: pages by type and the compression ratio.

struct PageAccountingCheck: VerificationPass {
    let name = "page accounting"

    func run(_ context: VerificationContext) throws {
        guard context.header != nil else { return }
        var byType: [String: Int] = [:]
        var logical: UInt64 = 0
        var stored: UInt64 = 0
        var run: (first: UInt32, last: UInt32, what: String)?
        let damageSeen = context.report.problemCount > 0
        func flush() {
            guard let r = run else { return }
            let pages =
                r.first == r.last
                ? "page \(r.first) (\(r.what))" : "pages \(r.first)...\(r.last) (\(r.last - r.first + 1) pages)"
            let why = damageSeen ? " (perhaps unreachable because of the damage reported above)" : ""
            context.problem(
                VerificationLocation(area: .page, page: PageNumber(r.first)),
                "\(pages) is in no tree and not listed free: leaked\(why)")
            run = nil
        }
        let count = context.pageCount
        var n: UInt32 = 1
        while n < count {
            if n % 4096 == 0 { context.progress(name, Int(n), Int(count)) }
            let status = context.imageStatus[n]
            switch status {
            case .ok(let type, let length)?:
                byType[PageType(rawValue: type).map { "\($0)" } ?? "unknown", default: 0] += 1
                logical += UInt64(context.pageSize)
                stored += UInt64(length)
            case .damaged?:
                byType["unreadable", default: 0] += 1
            case nil:
                switch context.version(of: PageNumber(n)) {
                case .freed, .absent: byType[context.owners[n] == .free ? "free" : "missing", default: 0] += 1
                case .unknown, .wal, .file: byType["unreadable", default: 0] += 1
                }
            }
            let leaked: String?
            if context.owners[n] != nil {
                leaked = nil
            } else if case .damaged? = status {
                leaked = nil  // its damage is reported; what referenced it cannot be known
            } else if case .ok(let type, _)? = status {
                leaked = PageType(rawValue: type).map { "\($0)" } ?? "unknown type"
            } else if case .unknown = context.version(of: PageNumber(n)) {
                leaked = nil  // its map chunk is damaged (reported)
            } else {
                leaked = "no image"
            }
            if let what = leaked {
                if let r = run, r.last + 1 == n {
                    run = (r.first, n, r.first == n ? what : "various")
                } else {
                    flush(); run = (n, n, what)
                }
            } else {
                flush()
            }
            n += 1
        }
        flush()
        context.updateSummary { s in
            s.pagesByType = byType
            s.logicalBytes = logical
            s.storedBytes = stored
        }
    }
}
