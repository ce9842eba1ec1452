/// The type of a logical page: byte 0 of every decompressed page, and copied into the page
/// image header so that the verifier can check types without decompressing.
///
/// Persisted values: frozen. Never renumber; add new types at the end.
public enum PageType: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    /// The store's meta page (page 1): catalog root, page count, free-page list head.
    case meta = 1
    /// A B+tree interior page: separator keys and child page numbers.
    case branch = 2
    /// A B+tree leaf page: keys and values (or references to overflow chains).
    case leaf = 3
    /// One page of an overflow chain holding part of a large value.
    case overflow = 4
    /// A page of the free-page list: numbers of logical pages free for reuse.
    case freeList = 5

    public var description: String {
        switch self {
        case .meta: return "meta"
        case .branch: return "branch"
        case .leaf: return "leaf"
        case .overflow: return "overflow"
        case .freeList: return "free-list"
        }
    }
}
