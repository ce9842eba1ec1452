// Free extents of the page file's data area, derived at open from the extents the map and
// directory reference (everything else between `dataStart` and `dataEnd` is free), then kept up
// to date by checkpoints. Nothing about free space is stored: it cannot disagree with the map.
//
// Invariants:
//  S1. Free extents never overlap each other or a used extent, and adjacent free extents are
//      merged (no two extents where one's end is the other's start).
//  S2. Offsets and lengths are multiples of `PageMapLayout.granule`.
//  S3. An extent freed by checkpoint k is handed out only after checkpoint k's header is durable
//      (the caller frees it at publication), so a crash mid-checkpoint never finds the last
//      durable map pointing at overwritten bytes.

/// Free extents with best-fit allocation and merging of neighbours.
struct FreeSpace {
    private(set) var byStart: [UInt64: UInt64] = [:]  // start → length
    private var byEnd: [UInt64: UInt64] = [:]  // end → start
    private var bySize: [UInt64: Set<UInt64>] = [:]  // length → starts
    private var sizes: [UInt64] = []  // sorted distinct lengths present
    /// The first byte after the data area in use; allocation past every free extent appends here.
    private(set) var dataEnd: UInt64
    private(set) var freeBytes: UInt64 = 0

    init(dataEnd: UInt64) { self.dataEnd = dataEnd }

    var extentCount: Int { byStart.count }

    /// Returns `length` bytes (rounded to the granule) at the best-fitting free extent, or at the end.
    mutating func allocate(_ length: UInt64) -> UInt64 {
        let need = PageMapLayout.roundUp(length)
        var lo = 0, hi = sizes.count
        while lo < hi { let mid = (lo + hi) / 2; if sizes[mid] < need { lo = mid + 1 } else { hi = mid } }
        if lo < sizes.count {
            let size = sizes[lo]
            let start = bySize[size]!.first!
            remove(start: start, length: size)
            if size > need { insert(start: start + need, length: size - need) }
            return start
        }
        let start = dataEnd
        dataEnd += need
        return start
    }

    /// Gives back an extent (S1 merging). `length` is the image length; the granule rounding is applied.
    mutating func free(_ start: UInt64, length: UInt64) {
        var s = start, len = PageMapLayout.roundUp(length)
        if let leftStart = byEnd[s], let leftLen = byStart[leftStart] {
            remove(start: leftStart, length: leftLen)
            s = leftStart; len += leftLen
        }
        if let rightLen = byStart[s + len] {
            remove(start: s + len, length: rightLen)
            len += rightLen
        }
        if s + len == dataEnd { dataEnd = s; return }
        insert(start: s, length: len)
    }

    private mutating func insert(start: UInt64, length: UInt64) {
        byStart[start] = length
        byEnd[start + length] = start
        freeBytes += length
        if bySize[length, default: []].isEmpty {
            var lo = 0, hi = sizes.count
            while lo < hi { let mid = (lo + hi) / 2; if sizes[mid] < length { lo = mid + 1 } else { hi = mid } }
            sizes.insert(length, at: lo)
        }
        bySize[length, default: []].insert(start)
    }

    private mutating func remove(start: UInt64, length: UInt64) {
        byStart[start] = nil
        byEnd[start + length] = nil
        freeBytes -= length
        bySize[length]?.remove(start)
        if bySize[length]?.isEmpty ?? true {
            bySize[length] = nil
            var lo = 0, hi = sizes.count
            while lo < hi { let mid = (lo + hi) / 2; if sizes[mid] < length { lo = mid + 1 } else { hi = mid } }
            if lo < sizes.count, sizes[lo] == length { sizes.remove(at: lo) }
        }
    }

    /// Builds the free space of a data area from its used extents, or reports the first overlap.
    /// The extents' owners are named only in the report.
    static func derive(used: [UsedExtent], dataEnd: UInt64) -> Result<FreeSpace, DamageReport> {
        var space = FreeSpace(dataEnd: dataEnd)
        var cursor = FileHeader.dataStart
        var previous: UsedExtent?
        func name(_ e: UsedExtent?) -> String { e.map { "\($0.owner) at offset \($0.start)" } ?? "the file header" }
        // A checkpointed file mostly lists its extents in offset order already: sort only if not.
        var sorted = used
        if !zip(used, used.dropFirst()).allSatisfy({ $0.start <= $1.start }) { sorted.sort { $0.start < $1.start } }
        for e in sorted {
            let len = PageMapLayout.roundUp(e.length)
            if e.start < cursor { return .failure("\(name(e)) overlaps \(name(previous))") }
            if e.start > cursor { space.insert(start: cursor, length: e.start - cursor) }
            cursor = e.start + len
            previous = e
            if cursor > dataEnd { return .failure("\(name(e)) ends past the data end \(dataEnd)") }
        }
        if cursor < dataEnd { space.dataEnd = cursor }
        return .success(space)
    }
}
