// One finding of the verifier: how serious it is, where it is, and what is wrong, in words that
// name the page, tree, key or WAL frame so that a user can act on it (SQLite's "Page N: …").

/// How serious a finding is.
///
/// Persisted in the JSON output: frozen.
public enum VerificationSeverity: String, Codable, Sendable, Hashable {
    /// Damage or an inconsistency in data the store uses: `cdstore-verify` exits with 4.
    case problem
    /// Worth knowing but not damage, such as a WAL tail that no commit completed.
    case note
}

/// Where a finding is. Only the fields that apply are set.
///
/// ```swift
/// let here = VerificationLocation(area: .page, page: PageNumber(17), tree: "people")
/// print(here)   // page 17, tree "people"
/// ```
public struct VerificationLocation: Codable, Sendable, Hashable, CustomStringConvertible {
    /// The part of the store a finding is about. Persisted in the JSON output: frozen.
    public enum Area: String, Codable, Sendable, Hashable {
        /// A copy of the page file header (`offset` says which).
        case header
        /// The page map: its directory or a chunk.
        case pageMap = "page-map"
        /// A logical page (`page`), possibly inside a tree (`tree`).
        case page
        /// A tree as a whole (`tree`): its catalog entry or its statistics.
        case tree
        /// The free-page list.
        case freeList = "free-list"
        /// The write-ahead log (`walFrame`, `offset`).
        case wal
        /// The page file as a whole (its size, its data area).
        case file
        /// Entries that a layer above the engine stores in its trees (the object store's records,
        /// indexes and relationships): `tree` and `key` say which entry.
        case records
    }

    /// The part of the store.
    public var area: Area
    /// The logical page, when one applies.
    public var page: UInt32?
    /// The tree's name, when the page or entry belongs to a named tree (`"(catalog)"` for the catalog).
    public var tree: String?
    /// The key involved, as lowercase hex.
    public var key: String?
    /// The WAL frame, counted from 0.
    public var walFrame: Int?
    /// A byte offset in the page file (or in the WAL for `.wal`).
    public var offset: UInt64?

    /// A location; pass only the fields that apply.
    public init(
        area: Area, page: PageNumber? = nil, tree: String? = nil, key: [UInt8]? = nil,
        walFrame: Int? = nil, offset: UInt64? = nil
    ) {
        self.area = area
        self.page = page?.rawValue
        self.tree = tree
        self.key = key.map(hexString)
        self.walFrame = walFrame
        self.offset = offset
    }

    public var description: String {
        var parts: [String] = []
        switch area {
        case .header: parts.append("header copy" + (offset.map { " at offset \($0)" } ?? ""))
        case .pageMap: parts.append("page map")
        case .page: if page == nil { parts.append("page") }
        case .tree: if tree == nil { parts.append("tree") }
        case .freeList: parts.append("free list")
        case .wal: parts.append("WAL")
        case .file: parts.append("page file")
        case .records: parts.append("records")
        }
        if let page { parts.append("page \(page)") }
        if let tree { parts.append("tree \"\(tree)\"") }
        if let key { parts.append("key \(key)") }
        if let walFrame { parts.append("frame \(walFrame)") }
        if let offset, area != .header { parts.append("offset \(offset)") }
        return parts.joined(separator: ", ")
    }
}

/// One finding: severity, location and message.
///
/// ```swift
/// for p in report.problems where p.severity == .problem { print(p) }
/// ```
public struct VerificationProblem: Codable, Sendable, Hashable, CustomStringConvertible {
    /// Problem or note.
    public var severity: VerificationSeverity
    /// Where it is.
    public var location: VerificationLocation
    /// What is wrong.
    public var message: String

    public init(severity: VerificationSeverity, location: VerificationLocation, message: String) {
        self.severity = severity
        self.location = location
        self.message = message
    }

    public var description: String { "\(severity == .problem ? "PROBLEM" : "note"): \(location): \(message)" }
}

/// Lowercase hex, at most 64 bytes shown (longer keys end with "…").
func hexString(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef")
    var s = ""
    for b in bytes.prefix(64) { s.append(digits[Int(b >> 4)]); s.append(digits[Int(b & 15)]) }
    return bytes.count > 64 ? s + "…" : s
}
