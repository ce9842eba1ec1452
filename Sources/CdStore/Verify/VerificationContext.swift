// The state the verifier's passes share: the open files, what each pass learned (header, map,
// WAL commits), the logical view of every page, which page belongs to what, and the report.
//
// Confinement: one context belongs to one verification run on one thread; it does no locking.
//
// Invariants:
//  V1. `map` has one slot per page of the header's page count; nil marks an entry that could not
//      be read (its chunk is damaged) or that points outside the file — already reported.
//  V2. `imageStatus[p]` describes the *logical* version of page p (the newest WAL image of a
//      commit recovery applies, else the page file's); set once, by WALCheck or PageImageCheck.
//  V3. `owners[p]` is the first owner that claimed page p; a second claim is a problem.

/// What the verifier's passes share. Later layers' passes read pages through ``source`` and report
/// through ``report(_:_:_:)``.
public final class VerificationContext {
    /// The page file's path.
    public let path: String
    /// The file layer the verification reads through (for passes that open the store themselves).
    public var fileSystem: any StoreFileSystem { options.fileSystem }
    /// Problems reported so far by every pass.
    public var problemCount: Int { report.problemCount }
    let walPath: String
    let file: any StoreFile
    let wal: (any StoreFile)?
    let fileSize: UInt64
    let options: VerifierOptions
    let pool = PageDecompressorPool()
    private(set) var report = VerificationReport()

    /// Set by a pass that finds nothing more can be checked (no usable header).
    var halted = false
    /// An I/O failure met where a throw was not possible (inside a page source).
    var operationalError: (any Error)?

    // HeaderCheck
    var header: FileHeader?
    var pageSize: Int { Int(header?.pageSize ?? 0) }

    // PageMapCheck (V1)
    var map: [MapEntry?] = []

    // WALCheck
    var walIndex = WALIndex()
    /// The last commit of the logical view.
    var lastCommit = CommitSequence(0)
    /// Pages 1..<pageCount exist in the logical view.
    var pageCount: UInt32 = 0

    // Page images (V2)
    enum ImageStatus { case ok(type: UInt8, imageLength: Int), damaged }
    var imageStatus: [UInt32: ImageStatus] = [:]
    var decodedPages: [UInt32: PageBuffer] = [:]
    private var decodedBytes = 0

    // Ownership (V3)
    enum Owner: Equatable, CustomStringConvertible {
        case meta, trunk, free, tree(String)
        var description: String {
            switch self {
            case .meta: return "the meta page"
            case .trunk: return "a free-list trunk"
            case .free: return "listed free"
            case .tree(let name): return "in tree \"\(name)\""
            }
        }
    }
    var owners: [UInt32: Owner] = [:]
    var metaPage: MetaPage?

    /// The trees the catalog names, in catalog order (set by TreeCheck).
    public internal(set) var trees: [(name: String, tree: BTree)] = []
    /// The logical pages as recovery would see them; unreadable pages throw
    /// `StoreError.corruption` (already reported).
    public private(set) lazy var source: PageSource = VerifierPageSource(context: self)

    init(path: String, file: any StoreFile, wal: (any StoreFile)?, options: VerifierOptions) throws {
        self.path = path
        self.walPath = path + "-wal"
        self.file = file
        self.wal = wal
        self.fileSize = try file.size()
        self.options = options
        report.summary.path = path
        report.summary.fileBytes = fileSize
    }

    // MARK: - Findings

    /// Records a finding. At most `maxProblems` are listed; all are counted.
    public func report(_ severity: VerificationSeverity, _ location: VerificationLocation, _ message: String) {
        if severity == .problem { report.problemCount += 1 } else { report.noteCount += 1 }
        if report.problems.count < options.maxProblems {
            report.problems.append(VerificationProblem(severity: severity, location: location, message: message))
        } else {
            report.omittedCount += 1
        }
    }

    func problem(_ location: VerificationLocation, _ message: String) { report(.problem, location, message) }

    func updateSummary(_ body: (inout VerificationSummary) -> Void) { body(&report.summary) }

    func progress(_ phase: String, _ done: Int, _ total: Int) {
        options.progress?(VerificationProgress(phase: phase, done: done, total: total))
    }

    /// Names `tree` on the problems already reported for `page` that name no tree (an image
    /// found damaged before the tree walk reached it).
    func attribute(page: PageNumber, toTree tree: String) {
        for i in report.problems.indices
        where report.problems[i].location.area == .page
            && report.problems[i].location.page == page.rawValue && report.problems[i].location.tree == nil
        {
            report.problems[i].location.tree = tree
        }
    }

    func finish() -> VerificationReport {
        let s = report.summary
        report.summary.compressionRatio = s.storedBytes > 0 ? Double(s.logicalBytes) / Double(s.storedBytes) : 0
        return report
    }

    // MARK: - Ownership (V3)

    /// Marks `page` as owned by `owner`; a page claimed before is a problem naming both owners.
    @discardableResult
    func claim(_ page: UInt32, _ owner: Owner) -> Bool {
        if let earlier = owners[page] {
            let tree: String? =
                if case .tree(let n) = owner { n } else if case .tree(let n) = earlier { n } else { nil }
            problem(
                VerificationLocation(area: .page, page: PageNumber(page), tree: tree),
                "page is \(earlier) and also \(owner)")
            return false
        }
        owners[page] = owner
        return true
    }

    // MARK: - The logical view

    /// Where the logical version of a page lives.
    enum PageVersion {
        case wal(WALIndex.Entry)
        case file(MapEntry)
        case freed(CommitSequence)
        case absent
        case unknown
    }

    func version(of page: PageNumber) -> PageVersion {
        if let e = walIndex.lookup(page, atOrBefore: lastCommit) { return e.isTombstone ? .freed(e.commit) : .wal(e) }
        let i = Int(page.rawValue)
        guard i < map.count else { return .absent }
        guard let entry = map[i] else { return .unknown }
        return entry.isPresent ? .file(entry) : .absent
    }

    /// Whether the logical version of `page` has an image.
    func hasImage(_ page: PageNumber) -> Bool {
        switch version(of: page) {
        case .wal, .file: return true
        case .freed, .absent, .unknown: return false
        }
    }

    /// Records the decode result of a logical page (V2) and keeps its buffer while the budget lasts.
    func recordLogical(_ page: UInt32, _ result: Result<(PageBuffer, Int), DamageReport>) {
        switch result {
        case .success(let (buffer, length)):
            imageStatus[page] = .ok(type: buffer.base.load(as: UInt8.self), imageLength: length)
            if decodedBytes + buffer.count <= options.decodedPageCacheBytes {
                decodedPages[page] = buffer
                decodedBytes += buffer.count
            }
        case .failure:
            imageStatus[page] = .damaged
        }
    }

    // MARK: - Reading images

    /// Reads and checks one page image of `length` bytes at `offset` of `source` (a file of
    /// `sourceSize` bytes): bounds, CRC, page number, commit, decompression to exactly one page,
    /// type byte (PageImage PI1–PI3), the reference's copy of the CRC, and the exact length.
    /// Returns the page and its image length, or why the image is damaged.
    /// Throws only I/O errors.
    func readImage(
        from source: any StoreFile, sourceSize: UInt64, offset: UInt64, length: UInt32,
        page: PageNumber, commit: CommitSequence, referenceCRC: UInt32?
    ) throws -> Result<(PageBuffer, Int), DamageReport> {
        let maxImage = PageImage.maxImageSize(pageSize: pageSize)
        guard Int(length) > PageImage.headerSize, Int(length) <= maxImage else {
            return .failure("image length \(length) is outside \(PageImage.headerSize + 1)...\(maxImage)")
        }
        guard offset <= sourceSize, UInt64(length) <= sourceSize - offset else {
            return .failure(
                "image at offset \(offset) length \(length) lies past the end of the file (\(sourceSize) bytes)")
        }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        let got = try bytes.withUnsafeMutableBytes { try source.read(into: $0, at: offset) }
        guard got == Int(length) else {
            return .failure("file ends after \(got) of \(length) image bytes at offset \(offset)")
        }
        return bytes.withUnsafeBytes { raw -> Result<(PageBuffer, Int), DamageReport> in
            switch PageImage.decode(
                raw, expected: page, expectedCommit: commit, pageSize: pageSize, pool: pool, pages: nil)
            {
            case .failure(let why):
                return .failure(why)
            case .success(let buffer):
                let h = PageImage.header(of: raw)
                if PageImage.headerSize + h.storedLength != Int(length) {
                    return .failure(
                        "reference says \(length) bytes, image holds \(PageImage.headerSize + h.storedLength)")
                }
                if let referenceCRC, referenceCRC != h.crc {
                    return .failure(
                        """
                        reference expects image CRC \(hex(referenceCRC)), image has \(hex(h.crc)) \
                        (stale or misdirected write)
                        """
                    )
                }
                guard PageType(rawValue: h.type) != nil else { return .failure("unknown page type \(h.type)") }
                return .success((buffer, Int(length)))
            }
        }
    }
}

/// The marker detail of a corruption thrown for a page whose damage was already reported.
let alreadyReported = "image is damaged (reported above)"
