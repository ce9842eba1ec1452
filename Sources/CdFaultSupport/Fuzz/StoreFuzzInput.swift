// How one fuzz input carries a page file and its WAL:
//
//   OFFSET  SIZE  DESCRIPTION
//   0       4     "CDFZ"
//   4       4     page-file length L, little-endian (clamped to what follows)
//   8       L     the page file
//   8+L     rest  the WAL (absent when empty)
//
// An input without the magic is a page file alone, so any bytes are a valid input.

import Foundation

public struct StoreFuzzInput: Equatable, Sendable {
    public static let magic: [UInt8] = Array("CDFZ".utf8)
    public var pageFile: [UInt8]
    public var wal: [UInt8]

    public init(pageFile: [UInt8], wal: [UInt8]) {
        self.pageFile = pageFile
        self.wal = wal
    }

    public static func unpack(_ input: [UInt8]) -> StoreFuzzInput {
        guard input.count >= 8, Array(input[0..<4]) == magic else { return StoreFuzzInput(pageFile: input, wal: []) }
        let claimed = Int(input[4]) | Int(input[5]) << 8 | Int(input[6]) << 16 | Int(input[7]) << 24
        let length = min(claimed, input.count - 8)
        return StoreFuzzInput(pageFile: Array(input[8..<(8 + length)]), wal: Array(input[(8 + length)...]))
    }

    public func packed() -> [UInt8] {
        let n = UInt32(pageFile.count)
        return Self.magic + [UInt8(n & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 24)] + pageFile
            + wal
    }

    /// The in-memory files of this input at `path` and `path-wal`.
    func files(at path: String) -> [String: [UInt8]] {
        var files = [path: pageFile]
        if !wal.isEmpty { files[path + "-wal"] = wal }
        return files
    }

    /// The golden stores under `Fixtures/stores`: packed page file + WAL, or (packed: false) the
    /// WALs alone.
    static func goldenStores(_ fixtures: URL, packed: Bool = true) -> [[UInt8]] {
        let dir = fixtures.appendingPathComponent("stores")
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter {
            $0.hasSuffix(".cdstore")
        }.sorted()
        return names.compactMap { name in
            guard let page = try? Data(contentsOf: dir.appendingPathComponent(name)) else { return nil }
            let wal = (try? Data(contentsOf: dir.appendingPathComponent(name + "-wal"))).map { [UInt8]($0) } ?? []
            return packed ? StoreFuzzInput(pageFile: [UInt8](page), wal: wal).packed() : wal
        }
    }
}
