// The hostile values tried on a field: the edges of its integer type (0, 1, max − 1, max), values
// that overflow sums and products with its neighbour (an offset whose sum with its length wraps,
// a count whose product with the size of what it counts wraps), self-references, page numbers
// past the end, offsets past the file's end, and every page or frame kind. Regions of variable
// size get zeros, 0xFF and one flipped bit.

/// One value written into a field.
public enum HostileValue: Hashable, Sendable, CustomStringConvertible {
    /// An integer, written little-endian in the field's width.
    case integer(UInt64)
    /// Every byte of the region set to this byte.
    case fill(UInt8)
    /// The region's first byte with its low bit flipped.
    case flipFirst

    public var description: String {
        switch self {
        case .integer(let v): return v > 0xFFFF ? "0x" + String(v, radix: 16) : String(v)
        case .fill(let b): return "fill-0x" + String(b, radix: 16)
        case .flipFirst: return "flip"
        }
    }
}

/// What a field's neighbourhood says about which values are hostile.
struct HostileContext {
    /// The page the field belongs to, for self-references.
    var ownerPage: UInt32?
    /// The store's page count (the meta page's, else the header's).
    var pageCount: UInt32
    /// The size of the file the field's offsets point into.
    var fileSize: Int
    var pageSize: Int
    /// For an offset: the length it is added to. For a count: how many fit (capacity).
    var neighbour: UInt64 = 0
    var capacity: Int?
}

enum HostileValues {
    /// The values for `spec`, none of them a no-op: not the current value, and no fill with the
    /// byte `region` already holds throughout.
    static func values(
        for spec: StoreFieldSpec, current: UInt64, context c: HostileContext,
        region: ArraySlice<UInt8>
    ) -> [HostileValue] {
        guard spec.width > 0 else {
            return [HostileValue.fill(0), .fill(0xFF), .flipFirst].filter { v in
                if case .fill(let b) = v { return !region.allSatisfy { $0 == b } }
                return true
            }
        }
        let max: UInt64 = spec.width == 8 ? .max : (1 << (8 * UInt64(spec.width))) - 1
        var candidates: [UInt64] = [0, 1, max - 1, max]
        let pageCount = UInt64(c.pageCount), fileSize = UInt64(c.fileSize), pageSize = UInt64(c.pageSize)
        switch spec.role {
        case .magic, .version, .reserved, .salt, .checksum:
            candidates.append(current ^ 1)
        case .pageSize:
            candidates += [512, 2048, 4097, 8192, 65536, 131072]
        case .pageType, .frameKind, .valueKind, .codec:
            candidates += [2, 3, 4, 5, 6]
        case .sequence, .commit:
            candidates += [current &+ 1, current &- 1]
        case .pageNumber:
            candidates += [UInt64(c.ownerPage ?? 1), pageCount, pageCount &+ 1, pageCount &- 1, 2, 3]
        case .pageCount:
            candidates += [0x8000_0000, 0x7FFF_FFFF, 2, 3, current &+ 1, current &- 1]
        case .count:
            if spec.unit > 0 { candidates.append(max / UInt64(spec.unit) + 1) }
            if let capacity = c.capacity { candidates.append(UInt64(capacity) + 1) }
            candidates.append(current &+ 1)
        case .fileOffset:
            candidates += [fileSize, fileSize + 64, max &- c.neighbour &+ 1, max - 63, 4096, 8192, current &+ 1]
        case .length:
            candidates += [pageSize, pageSize + 1, pageSize + 25, 24, current &+ 1, current &- 1]
        case .pageOffset:
            candidates += [pageSize, pageSize &- 1, 15, 16, current &+ 1]
        case .bytes:
            break
        }
        var seen = Set<UInt64>()
        return candidates.filter { $0 <= max && $0 != current && seen.insert($0).inserted }.map { .integer($0) }
    }
}
