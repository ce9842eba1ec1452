// Every place of a layout where a catalogued field lives (a *site*), with the hostile values for
// it. Header copies, directory, map chunks and entries, image headers and stored streams (in the
// page file and in WAL frames), the decoded page of every image by its type (meta page, free-list
// trunk, branch and leaf headers, cell pointers, cells, catalog values, overflow pages), the WAL
// header, frame headers and commit records.

/// One field at one place of a store.
public struct StoreFieldSite: Sendable {
    public enum Place: Equatable, Sendable {
        /// Raw bytes of a file at this offset.
        case pageFile(Int)
        case wal(Int)
        /// Inside the decoded page of layout image `image`, at this offset.
        case page(image: Int, offset: Int)
    }
    /// Names the place, e.g. `header@0/commit sequence`, `wal frame 3/page 5/leaf cell 0/value length`.
    public var id: String
    public var spec: StoreFieldSpec
    public var place: Place
    /// Bytes the field covers (its width, or a region's length).
    public var length: Int
    public var current: UInt64
    public var values: [HostileValue]
    /// The WAL or the page file: the file whose structures hold the field.
    public var inWAL: Bool
}

extension StoreLayout {
    /// Every site of every catalogued field. `cellsPerPage` limits the cells, slots and trunk
    /// entries enumerated per page (first, middle, last); nil enumerates them all.
    public func sites(cellsPerPage: Int? = 3) -> [StoreFieldSite] {
        var out: [StoreFieldSite] = []
        let pf = files.pageFile, wal = files.wal
        func context(owner: UInt32? = nil, fileSize: Int, neighbour: UInt64 = 0, capacity: Int? = nil) -> HostileContext
        {
            HostileContext(
                ownerPage: owner, pageCount: pageCount, fileSize: fileSize, pageSize: pageSize,
                neighbour: neighbour, capacity: capacity)
        }
        func add(
            _ prefix: String, _ specs: [StoreFieldSpec], base: Int, bytes: [UInt8], inWAL: Bool,
            place: (Int) -> StoreFieldSite.Place, context c: HostileContext, regionEnd: Int? = nil,
            neighbours: [String: UInt64] = [:]
        ) {
            out += Self.sites(
                specs, id: prefix, base: base, bytes: bytes, regionEnd: regionEnd, context: c,
                neighbours: neighbours, inWAL: inWAL, place: place)
        }
        let filePlace: (Int) -> StoreFieldSite.Place = { .pageFile($0) }
        let walPlace: (Int) -> StoreFieldSite.Place = { .wal($0) }

        for slot in validHeaders {
            add(
                "header@\(slot)", StoreFieldCatalogue.header, base: slot, bytes: pf, inWAL: false, place: filePlace,
                context: context(fileSize: pf.count), regionEnd: slot + 124,
                neighbours: ["directory offset": le(pf, slot + 48, 4)!])
        }
        if let d = directory {
            add(
                "directory", Array(StoreFieldCatalogue.directory.prefix(2)), base: d.offset, bytes: pf, inWAL: false,
                place: filePlace, context: context(fileSize: pf.count))
            for (i, chunk) in chunks.enumerated() {
                add(
                    "directory/chunk \(i)", Array(StoreFieldCatalogue.directory.suffix(3)), base: chunk.directoryEntry,
                    bytes: pf,
                    inWAL: false, place: filePlace, context: context(fileSize: pf.count),
                    neighbours: ["directory chunk offset": UInt64(chunk.length)])
                add(
                    "chunk \(i)", StoreFieldCatalogue.chunk, base: chunk.offset, bytes: pf, inWAL: false,
                    place: filePlace,
                    context: context(fileSize: pf.count, capacity: 1024), regionEnd: chunk.offset + chunk.length)
                let count = (chunk.length - 16) / 24
                for j in 0..<count {
                    let e = chunk.offset + 16 + 24 * j
                    add(
                        "chunk \(i)/entry \(j)", StoreFieldCatalogue.mapEntry, base: e, bytes: pf, inWAL: false,
                        place: filePlace,
                        context: context(owner: UInt32(j), fileSize: pf.count),
                        neighbours: ["entry offset": le(pf, e + 8, 4)!])
                }
            }
        }
        if walHeaderValid {
            add(
                "wal header", StoreFieldCatalogue.walHeader, base: 0, bytes: wal, inWAL: true, place: walPlace,
                context: context(fileSize: wal.count))
            for (i, frame) in frames.enumerated() {
                add(
                    "wal frame \(i)", StoreFieldCatalogue.frame, base: frame.offset, bytes: wal, inWAL: true,
                    place: walPlace,
                    context: context(owner: UInt32(le(wal, frame.offset + 4, 4)!), fileSize: wal.count),
                    regionEnd: frame.payloadOffset + frame.payloadLength)
                if frame.kind == 3 {
                    add(
                        "wal frame \(i)/commit record", StoreFieldCatalogue.commitRecord, base: frame.payloadOffset,
                        bytes: wal,
                        inWAL: true, place: walPlace, context: context(fileSize: wal.count),
                        regionEnd: frame.payloadOffset + frame.payloadLength)
                }
            }
        }
        for (index, image) in images.enumerated() {
            let (bytes, offset, length) = imageBytes(image)
            let inWAL: Bool, prefix: String
            switch image.place {
            case .pageFile: inWAL = false; prefix = "page \(image.page) image"
            case .wal(let frame): inWAL = true; prefix = "wal frame \(frame)/page \(image.page) image"
            }
            add(
                prefix, StoreFieldCatalogue.image, base: offset, bytes: bytes, inWAL: inWAL,
                place: inWAL ? walPlace : filePlace,
                context: context(owner: image.page, fileSize: bytes.count), regionEnd: offset + length)
            if let page = image.decoded {
                out += pageSites(
                    page, image: index, prefix: prefix.replacingOccurrences(of: " image", with: ""),
                    inWAL: inWAL, number: image.page, cellsPerPage: cellsPerPage)
            }
        }
        return out
    }

    /// The sites inside one decoded logical page, by its type byte.
    private func pageSites(
        _ page: [UInt8], image: Int, prefix: String, inWAL: Bool, number: UInt32,
        cellsPerPage: Int?
    ) -> [StoreFieldSite] {
        var out: [StoreFieldSite] = []
        let c = HostileContext(
            ownerPage: number, pageCount: pageCount, fileSize: inWAL ? files.wal.count : files.pageFile.count,
            pageSize: pageSize)
        func add(_ name: String, _ specs: [StoreFieldSpec], base: Int, regionEnd: Int? = nil, capacity: Int? = nil) {
            var ctx = c
            ctx.capacity = capacity
            out += Self.sites(
                specs, id: name.isEmpty ? prefix : "\(prefix)/\(name)", base: base, bytes: page, regionEnd: regionEnd,
                context: ctx, inWAL: inWAL, place: { .page(image: image, offset: $0) })
        }
        func chosen(_ count: Int) -> [Int] {
            guard let limit = cellsPerPage, count > limit else { return Array(0..<count) }
            return Array(Set([0, count / 2, count - 1])).sorted()
        }
        switch page[0] {
        case 1:
            add("", StoreFieldCatalogue.meta, base: 0, regionEnd: 8)
        case 5:
            let capacity = (pageSize - 12) / 4
            add("", Array(StoreFieldCatalogue.trunk.prefix(4)), base: 0, regionEnd: 4, capacity: capacity)
            for i in chosen(min(Int(le(page, 8, 4)!), capacity)) {
                add("trunk entry \(i)", [StoreFieldCatalogue.trunk[4]], base: 12 + 4 * i)
            }
        case 4:
            add("", StoreFieldCatalogue.overflow, base: 0, regionEnd: pageSize)
        case 2, 3:
            let isLeaf = page[0] == 3
            let count = Int(le(page, 2, 2)!), contentStart = Int(le(page, 4, 4)!)
            let slotsEnd = 16 + 2 * count
            guard slotsEnd <= pageSize, contentStart >= slotsEnd, contentStart <= pageSize else { break }
            add("", Array(StoreFieldCatalogue.node.prefix(6)), base: 0, capacity: (pageSize - 16) / 2)
            add("", [StoreFieldCatalogue.node[7]], base: slotsEnd, regionEnd: contentStart)
            add("", [StoreFieldCatalogue.node[8]], base: contentStart, regionEnd: pageSize)
            for i in chosen(count) {
                add("slot \(i)", [StoreFieldCatalogue.node[6]], base: 16 + 2 * i)
                let cell = Int(le(page, 16 + 2 * i, 2)!)
                guard cell >= contentStart, cell + 7 <= pageSize else { continue }
                let keyLength = Int(le(page, cell, 2)!)
                if isLeaf {
                    let kind = page[cell + 2], valueLength = Int(le(page, cell + 3, 4)!)
                    let valueAt = cell + 7 + keyLength
                    add("leaf cell \(i)", Array(StoreFieldCatalogue.leafCell.prefix(3)), base: cell)
                    add("leaf cell \(i)", [StoreFieldCatalogue.leafCell[3]], base: cell, regionEnd: valueAt)
                    if kind == 1 {
                        add("leaf cell \(i)", [StoreFieldCatalogue.leafCell[5]], base: cell + keyLength)
                    } else if number == 2, valueLength == 8, valueAt + 8 <= pageSize {
                        add(
                            "catalog cell \(i)", StoreFieldCatalogue.catalogValue, base: valueAt, regionEnd: valueAt + 8
                        )
                    } else if valueLength > 0 {
                        add(
                            "leaf cell \(i)", [StoreFieldCatalogue.leafCell[4]], base: cell + keyLength,
                            regionEnd: min(pageSize, valueAt + valueLength))
                    }
                } else {
                    add("branch cell \(i)", Array(StoreFieldCatalogue.branchCell.prefix(2)), base: cell)
                    add(
                        "branch cell \(i)", [StoreFieldCatalogue.branchCell[2]], base: cell,
                        regionEnd: cell + 6 + keyLength)
                }
            }
        default:
            break
        }
        return out
    }

    /// The sites of `specs` laid out from `base` in `bytes`: a region without a fixed size ends at
    /// `regionEnd`; fields that do not fit the bytes are left out.
    private static func sites(
        _ specs: [StoreFieldSpec], id: String, base: Int, bytes: [UInt8], regionEnd: Int?,
        context: HostileContext, neighbours: [String: UInt64] = [:], inWAL: Bool,
        place: (Int) -> StoreFieldSite.Place
    ) -> [StoreFieldSite] {
        specs.compactMap { spec in
            let at = base + spec.offset
            let length = spec.width > 0 ? spec.width : spec.fixedRegionSize ?? max(0, (regionEnd ?? (at + 1)) - at)
            guard length > 0, at >= 0, at + length <= bytes.count else { return nil }
            var ctx = context
            if let n = neighbours[spec.name] { ctx.neighbour = n }
            let current = spec.width > 0 ? le(bytes, at, spec.width)! : 0
            return StoreFieldSite(
                id: "\(id)/\(spec.name)", spec: spec, place: place(at), length: length, current: current,
                values: HostileValues.values(
                    for: spec, current: current, context: ctx, region: bytes[at..<(at + length)]),
                inWAL: inWAL)
        }
    }
}
