// An extent of the page file's data area that the map or its directory references, as open
// derives free space from them (FreeSpace.derive).
//
// The owner is a small value, not text: a store of 1M objects has ~30,000 pages, and naming each
// one in a string at every open cost more than the rest of deriving the free space. The name is
// made only for the damage report of an overlap.

/// A used extent of the data area and what it holds.
struct UsedExtent {
    /// What an extent holds, named only when a damage report needs it.
    enum Owner: CustomStringConvertible {
        case page(Int)
        case mapChunk(Int)
        case mapDirectory

        var description: String {
            switch self {
            case let .page(n): return "page \(n)"
            case let .mapChunk(i): return "map chunk \(i)"
            case .mapDirectory: return "the map directory"
            }
        }
    }

    var start: UInt64
    var length: UInt64
    var owner: Owner
}
