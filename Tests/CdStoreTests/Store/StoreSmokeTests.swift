import Foundation
import Testing
@testable import CdStore

@Suite struct StoreSmokeTests {
    @Test func writeReadReopen() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cd-smoke-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("s.cdstore").path
        do {
            let store = try Store.open(path: path)
            try store.write { tx in
                let t = try tx.createTree("people")
                for i in 0..<5000 {
                    try t.put(
                        Array("key\(i)".utf8),
                        Array("value \(i) ".utf8) + [UInt8](repeating: UInt8(i % 256), count: i % 300))
                }
            }
            let v = try store.read { try $0.tree("people")?.get(Array("key42".utf8)) }
            #expect(v.map { Array($0.prefix(9)) } == Array("value 42 ".utf8))
            try store.close()
        }
        let store = try Store.open(path: path)
        let n = try store.read { try $0.tree("people")!.count() }
        #expect(n == 5000)
        #expect(try store.read { try $0.treeNames() } == ["people"])
        try store.close()
    }
}
