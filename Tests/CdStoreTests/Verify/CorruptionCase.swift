// One corruption recipe of Fixtures/corruptions/cases.json, and how to apply it: each action
// damages a copy of a test store and says what it aimed at, so that the test can check that the
// verifier names that page, tree, WAL frame or header copy.

import Foundation
import Testing
@testable import CdStore

struct CorruptionCase: Codable, Sendable, CustomTestStringConvertible {
    var name: String
    var store: TestStoreKind
    var target: String
    var action: String
    var expect: String

    var testDescription: String { name }

    /// What an action aimed at.
    struct Aim {
        var pages: [PageNumber] = []
        var tree: String?
        var walFrame: Int?
        var offset: UInt64?
    }

    static func load() throws -> [CorruptionCase] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
                "Fixtures/corruptions/cases.json")
        return try JSONDecoder().decode([CorruptionCase].self, from: Data(contentsOf: url))
    }

    /// Damages `files` as the recipe says; returns what was aimed at.
    func apply(to files: inout StoreFiles) throws -> Aim {
        let anatomy = try StoreAnatomy(files)
        switch action {
        case "flipImageByte", "zeroImage":
            let page = try #require(targetPages(anatomy).first, "no page-file page of type \(target)")
            let range = anatomy.imageRange(page)
            if action == "zeroImage" {
                for i in range { files.pageFile[i] = 0 }
            } else {
                files.pageFile[range.lowerBound + PageImage.headerSize + (range.count - PageImage.headerSize) / 2] ^=
                    0x5A
            }
            return Aim(pages: [page])
        case "truncateFile":
            var extents = anatomy.map.enumerated().filter { $0.element.isPresent }.map {
                ($0.element.offset, UInt64($0.element.length))
            }
            extents += anatomy.chunks.map { ($0.offset, UInt64($0.length)) }
            extents.append((anatomy.header.directoryOffset, UInt64(anatomy.header.directoryLength)))
            let last = try #require(extents.max { $0.0 < $1.0 })
            files.pageFile.removeLast(files.pageFile.count - Int(last.0 + last.1 / 2))
            return Aim(offset: last.0)
        case "swapImages":
            let pages = targetPages(anatomy)
            try #require(pages.count >= 2)
            let a = anatomy.imageRange(pages[0]), b = anatomy.imageRange(pages[1])
            try #require(a.count == b.count, "raw images have one length")
            let copyA = Array(files.pageFile[a])
            files.pageFile.replaceSubrange(a, with: files.pageFile[b])
            files.pageFile.replaceSubrange(b, with: copyA)
            return Aim(pages: [pages[0], pages[1]])
        case "flipChunkByte":
            let chunk = try #require(anatomy.chunks.first)
            files.pageFile[Int(chunk.offset) + PageMapLayout.chunkHeaderSize + 30] ^= 0x01
            return Aim(offset: chunk.offset)
        case "pointTwoParentsAtOneChild", "shareChildAcrossTrees", "breakKeyOrder", "cutOverflowChain", "leakFreePage":
            var aim = Aim()
            files = try files.editedWithEngine(close: true) { store in
                try store.write { tx in aim = try editWithEngine(tx, anatomy: anatomy) }
            }
            return aim
        case "truncateWALTail":
            files.wal.removeLast(20)
            return Aim()
        case "appendWALGarbage":
            files.wal += [UInt8](repeating: 0xAB, count: 100)
            return Aim()
        case "flipWALMiddleFrame", "flipWALCommitRecord":
            let scan = try #require(anatomy.scan)
            let commits = scan.commits.filter { $0.commit > anatomy.header.commitSequence }
            try #require(commits.count >= 2)
            if action == "flipWALCommitRecord" {
                let last = commits.last!
                let frames = scan.commits.prefix { $0.commit <= last.commit }.reduce(0) { $0 + $1.frames.count + 1 }
                files.wal[Int(last.endOffset) - 5] ^= 0x10
                return Aim(walFrame: frames - 1)
            }
            let frame = try #require(commits.first!.frames.first { $0.kind == .page })
            files.wal[Int(frame.payloadOffset) + 40] ^= 0x01
            return Aim(walFrame: frame.frameIndex)
        case "flipWALHeader":
            files.wal[17] ^= 0x01
            return Aim(offset: 0)
        case "flipHeaderCopy0", "flipHeaderCopy1":
            let offset = FileHeader.slotOffsets[action == "flipHeaderCopy0" ? 0 : 1]
            files.pageFile[Int(offset) + 40] ^= 0x04
            return Aim(offset: offset)
        default:
            Issue.record("unknown action \(action)")
            return Aim()
        }
    }

    /// Page-file pages of the target type (leaves of "alpha", overflow pages of "blobs").
    private func targetPages(_ anatomy: StoreAnatomy) -> [PageNumber] {
        switch target {
        case "meta": return anatomy.pageFilePages(.meta)
        case "branch": return anatomy.pageFilePages(.branch, tree: "alpha")
        case "leaf": return anatomy.pageFilePages(.leaf, tree: "alpha")
        case "catalog": return anatomy.pageFilePages(.leaf, tree: "(catalog)")
        case "overflow": return anatomy.pageFilePages(.overflow, tree: "blobs")
        case "free-list": return anatomy.pageFilePages(.freeList)
        case "superseded-leaf":
            return anatomy.pages.filter {
                $0.value.type == .leaf && anatomy.inWAL($0.key) && anatomy.map[Int($0.key.rawValue)].isPresent
            }
            .map(\.key).sorted()
        default: return []
        }
    }

    /// Structural damage written through the engine, so every checksum is right.
    private func editWithEngine(_ tx: WriteTransaction, anatomy: StoreAnatomy) throws -> Aim {
        switch action {
        case "pointTwoParentsAtOneChild", "shareChildAcrossTrees":
            let root = try #require(anatomy.trees["alpha"]).root
            let buffer = try tx.writablePage(root)
            let node = try BTreeNode(buffer, number: root)
            try #require(!node.isLeaf)
            let child =
                action == "shareChildAcrossTrees" ? try #require(anatomy.trees["gamma"]).root : node.leftmostChild
            buffer.mutableBytes.setLEU32(child.rawValue, at: try node.cellOffset(0) + BTreeLayout.branchChildOffset)
            return Aim(pages: [child], tree: "alpha")
        case "breakKeyOrder":
            let leaf = try #require(anatomy.pageFilePages(.leaf, tree: "alpha").first)
            let m = try tx.writablePage(leaf).mutableBytes
            let s0 = m.baseAddress!.load(fromByteOffset: BTreeLayout.headerSize, as: UInt16.self)
            let s1 = m.baseAddress!.load(fromByteOffset: BTreeLayout.headerSize + 2, as: UInt16.self)
            m.baseAddress!.storeBytes(of: s1, toByteOffset: BTreeLayout.headerSize, as: UInt16.self)
            m.baseAddress!.storeBytes(of: s0, toByteOffset: BTreeLayout.headerSize + 2, as: UInt16.self)
            return Aim(pages: [leaf], tree: "alpha")
        case "cutOverflowChain":
            for leaf in anatomy.pageFilePages(.leaf, tree: "blobs") {
                let node = try BTreeNode(try tx.page(leaf), number: leaf)
                for i in 0..<node.count {
                    let cell = try node.leafCell(i)
                    guard cell.isOverflow, BTreeOverflow.pageCount(length: cell.valueLength, pageSize: tx.pageSize) >= 2
                    else { continue }
                    let first = PageNumber(node.bytes.leU32(at: cell.valueStart))
                    try tx.writablePage(first).mutableBytes.setLEU32(0, at: BTreeLayout.overflowNextOffset)
                    return Aim(pages: [leaf], tree: "blobs")
                }
            }
            Issue.record("no overflow chain of two pages or more")
            return Aim()
        case "leakFreePage":
            guard case .success(let meta) = MetaPage.decode(try tx.page(MetaPage.number)) else {
                throw StoreError.transactionFinished
            }
            let trunk = FreeListTrunk(page: try tx.writablePage(meta.freeListHead))
            try #require(trunk.count > 0)
            let leaked = trunk.entry(trunk.count - 1)
            trunk.count -= 1
            return Aim(pages: [leaked])
        default:
            return Aim()
        }
    }
}
