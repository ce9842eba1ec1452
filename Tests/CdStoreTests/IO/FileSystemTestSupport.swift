// Shared harness of the I/O tests: every `StoreFileSystem` implementation behind one factory, so
// that one test body runs against all of them (GRDB's habit: one body, every implementation).

import Foundation
import Testing
@testable import CdStore
import CdStoreTesting

/// The namespace of the I/O test suites (so that `swift test --filter IO` runs exactly them).
enum IOTests {}

/// The implementations a contract test runs against.
enum FileSystemKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case posix
    case inMemory
    case faultInjecting

    var testDescription: String { rawValue }
}

/// A file system and a directory to make files in, removed again when the test ends.
final class Scratch {
    let fileSystem: any StoreFileSystem
    let directory: String
    private let isTemporaryDirectory: Bool

    init(_ kind: FileSystemKind) throws {
        switch kind {
        case .posix:
            let temporary =
                NSTemporaryDirectory().hasSuffix("/")
                ? String(NSTemporaryDirectory().dropLast()) : NSTemporaryDirectory()
            var template = Array("\(temporary)/cadmium-io-XXXXXX".utf8CString)
            guard let made = mkdtemp(&template) else {
                throw StoreError.io(operation: "mkdtemp", path: "", errno: errno)
            }
            directory = String(cString: made)
            fileSystem = POSIXFileSystem()
            isTemporaryDirectory = true
        case .inMemory:
            directory = "/scratch"
            fileSystem = InMemoryFileSystem()
            isTemporaryDirectory = false
        case .faultInjecting:
            directory = "/scratch"
            fileSystem = FaultInjectingFileSystem()
            isTemporaryDirectory = false
        }
    }

    func path(_ name: String) -> String { "\(directory)/\(name)" }

    deinit {
        if isTemporaryDirectory { try? FileManager.default.removeItem(atPath: directory) }
    }
}

/// The bytes of a string, for short readable test data.

/// Reads `count` bytes at `offset` and returns what was read (shorter at end of file).
func read(_ file: any StoreFile, _ count: Int, at offset: UInt64) throws -> [UInt8] {
    var buffer = [UInt8](repeating: 0xEE, count: count)
    let got = try buffer.withUnsafeMutableBytes { try file.read(into: $0, at: offset) }
    return Array(buffer[..<got])
}

/// The whole file.
func readAll(_ file: any StoreFile) throws -> [UInt8] {
    try read(file, Int(try file.size()), at: 0)
}
