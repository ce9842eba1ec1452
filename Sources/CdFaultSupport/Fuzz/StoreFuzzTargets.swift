// The engine's fuzz targets. Rule: any input ends in success or a `StoreError`; the verifier, in
// a report or one of its documented operational errors (docs/VERIFY.md, exit code 8).

import CdStore
import Foundation

enum StoreFuzzTargets {
    static let path = "/fuzz.cdstore"

    /// The clean page file the WAL target recovers against.
    static let walBase: [UInt8]? = locateFixtures().flatMap {
        try? Data(contentsOf: $0.appendingPathComponent("stores/v1-wal.cdstore"))
    }.map { [UInt8]($0) }

    static func openAndReadAll(_ input: StoreFuzzInput) -> String? {
        for readOnly in [true, false] {
            if let finding = openAndReadAll(files: input.files(at: path), readOnly: readOnly) { return finding }
        }
        return nil
    }

    static func recover(wal: [UInt8]) -> String? {
        guard let base = walBase else {
            return "fixture Fixtures/stores/v1-wal.cdstore not found (set CADMIUM_FIXTURES)"
        }
        let files = StoreFuzzInput(pageFile: base, wal: wal).files(at: path)
        for readOnly in [true, false] {
            if let finding = openAndReadAll(files: files, readOnly: readOnly) { return finding }
        }
        return nil
    }

    /// Opens the files, reads every entry of every tree forwards and every key backwards, and,
    /// when writable, commits one change and closes (a checkpoint); then reopens read-only.
    static func openAndReadAll(files: [String: [UInt8]], readOnly: Bool) -> String? {
        let fs = InMemoryFileSystem(files: files)
        var options = StoreOptions(fileSystem: fs)
        options.readOnly = readOnly
        options.durability = .off
        options.cacheBytes = 1 << 20
        do {
            let store = try Store.open(path: path, options: options)
            defer { try? store.close() }
            try readEveryTree(of: store)
            if !readOnly {
                try store.write { try $0.openOrCreateTree("fuzz").put([1], [2]) }
                try store.close()
                options.readOnly = true
                let again = try Store.open(path: path, options: options)
                defer { try? again.close() }
                try readEveryTree(of: again)
            }
            return nil
        } catch is StoreError {
            return nil
        } catch {
            return "\(readOnly ? "read-only" : "read-write") open threw a non-StoreError: \(type(of: error)) \(error)"
        }
    }

    static func verify(_ input: StoreFuzzInput) -> String? {
        var options = VerifierOptions(fileSystem: InMemoryFileSystem(files: input.files(at: path)))
        options.maxProblems = 20
        do {
            _ = try StoreVerifier.verify(path: path, options: options)
            return nil
        } catch let error as StoreError {
            switch error {
            case .notAStore, .unsupportedFormatVersion: return nil
            default: return "the verifier threw \(error); damage must be a finding (docs/VERIFY.md)"
            }
        } catch {
            return "the verifier threw a non-StoreError: \(type(of: error)) \(error)"
        }
    }
}
