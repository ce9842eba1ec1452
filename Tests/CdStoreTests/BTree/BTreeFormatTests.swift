// The worked example of docs/FORMAT.md, rebuilt by the tree and compared byte for byte with
// the hex dump in the document, so that the document and the code cannot drift apart.

import Foundation
import Testing
@testable import CdStore

@Suite struct BTreeFormatTests {
    /// The hex lines between "<!-- example:NAME -->" and the closing fence, as "offset: bytes".
    static func documentedBytes(_ name: String) throws -> [Int: [UInt8]] {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/FORMAT.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: "<!-- example:\(name) -->") else { return [:] }
        var result: [Int: [UInt8]] = [:]
        for line in lines[(start + 2)...] {
            if line.hasPrefix("```") { break }
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, let offset = Int(parts[0].trimmingCharacters(in: .whitespaces), radix: 16) else {
                continue
            }
            let hex = parts[1].split(separator: "|")[0].split(separator: " ").compactMap { UInt8($0, radix: 16) }
            result[offset] = hex
        }
        return result
    }

    /// Every documented byte run equals the page's bytes at that offset.
    static func expectMatches(_ name: String, _ page: PageBuffer) throws {
        let documented = try documentedBytes(name)
        #expect(!documented.isEmpty, "docs/FORMAT.md has no example \(name)")
        for (offset, expected) in documented {
            let actual = Array(page.bytes[offset..<offset + expected.count])
            #expect(
                actual == expected,
                "\(name) at offset \(String(offset, radix: 16)): page has \(actual.map { String($0, radix: 16) })")
        }
    }

    @Test func workedExampleMatchesDocument() throws {
        let sink = InMemoryPageSink(pageSize: 4096)
        let tree = try BTree.create(in: sink)
        try tree.put(bytes("pear"), bytes("green"), in: sink)
        try tree.put(bytes("apple"), bytes("red"), in: sink)
        try tree.put(bytes("fig"), [UInt8](repeating: 0x46, count: 5000), in: sink)
        try Self.expectMatches("leaf", sink.page(tree.root))
        let leaf = try BTreeNode(sink.page(tree.root), number: tree.root)
        let fig = try leaf.leafCell(1)
        let first = PageNumber(leaf.bytes.leU32(at: fig.valueStart))
        try Self.expectMatches("overflow", sink.page(first))
    }
}
