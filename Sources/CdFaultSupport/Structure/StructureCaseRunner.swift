// What the structure campaign does with one mutated store, and the rules it checks:
//
//   1. read-only `Store.open` and every tree read forwards and backwards: a view or a StoreError;
//   2. writable `Store.open` (recovery and its checkpoint), every tree read, two small commits
//      (one allocating pages, one freeing them), close (a checkpoint), a read-only reopen: a
//      StoreError, or the same view as step 1 plus the two commits. A writable open must never
//      reformat: when step 1 refused the file, a writable open that succeeds must still hold
//      every tree the unmutated store held;
//   3. `StoreVerifier.verify`: a report, or only `notAStore` / `unsupportedFormatVersion`.
//
// A trap, a hang or a runaway allocation cannot be caught in-process: the campaign runs its cases
// in a child process (`cadmium-crash-child --structure-campaign`) that reports them.

import CdStore

/// The trees of a store: name → (entry count, FNV-1a hash of the keys and values in order).
public typealias TreeView = [String: TreeDigest]

public struct TreeDigest: Equatable, Sendable {
    public var entries = 0
    public var hash: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ bytes: [UInt8]) {
        for b in [UInt8(truncatingIfNeeded: bytes.count), UInt8(truncatingIfNeeded: bytes.count >> 8)] + bytes {
            hash = (hash ^ UInt64(b)) &* 0x100_0000_01b3
        }
    }
}

/// How one case ended.
public struct StructureCaseResult: Sendable {
    /// The read-only open: nil when it gave a view, else the StoreError.
    public var readOnlyError: String?
    /// The writable session: nil when it committed and reopened, else the StoreError.
    public var writableError: String?
    /// Problems the verifier reported (0 for a clean report), or -1 when it threw a permitted error.
    public var verifierProblems: Int
    /// A broken rule; nil when the case passed.
    public var violation: String?

    /// `typed-error`, `clean` or `violation`.
    public var outcome: String {
        violation != nil ? "violation" : (readOnlyError ?? writableError) != nil ? "typed-error" : "clean"
    }
}

public enum StructureCaseRunner {
    static let path = "/case.cdstore"
    static let commitTree = "structure-campaign"

    /// Runs the three steps on `files`; `original` is the view of the unmutated store.
    public static func run(_ files: StoreFuzzInput, original: TreeView) -> StructureCaseResult {
        var violation: String?
        var readOnlyView: TreeView?, readOnlyError: String?
        do {
            readOnlyView = try session(files.files(at: path), readOnly: true).view
        } catch let error as StoreError {
            readOnlyError = "\(error)"
        } catch {
            violation = "read-only open threw a non-StoreError: \(error)"
        }
        var writableError: String?
        do {
            let (view, after) = try session(files.files(at: path), readOnly: false)
            if let readOnlyView, view != readOnlyView {
                violation =
                    violation
                    ?? "the writable open saw other trees than the read-only open: \(differences(readOnlyView, view))"
            } else if readOnlyView == nil, let lost = original.keys.sorted().first(where: { view[$0] == nil }) {
                violation =
                    violation
                    ?? "the read-only open refused the file, yet the writable open succeeded "
                    + "without tree \"\(lost)\" (reformatted?)"
            }
            var expected = view
            expected[commitTree] = committedDigest
            if let after, after != expected {
                violation =
                    violation ?? "after two commits and a reopen the trees differ: \(differences(expected, after))"
            }
        } catch let error as StoreError {
            writableError = "\(error)"
        } catch {
            violation = violation ?? "writable session threw a non-StoreError: \(error)"
        }
        var problems = 0
        var options = VerifierOptions(fileSystem: InMemoryFileSystem(files: files.files(at: path)))
        options.maxProblems = 5
        do {
            problems = try StoreVerifier.verify(path: path, options: options).problemCount
        } catch let error as StoreError {
            switch error {
            case .notAStore, .unsupportedFormatVersion: problems = -1
            default: violation = violation ?? "the verifier threw \(error); damage must be a finding"
            }
        } catch {
            violation = violation ?? "the verifier threw a non-StoreError: \(error)"
        }
        return StructureCaseResult(
            readOnlyError: readOnlyError, writableError: writableError,
            verifierProblems: problems, violation: violation)
    }

    /// The trees of an undamaged store.
    public static func view(of files: StoreFuzzInput) throws -> TreeView {
        try session(files.files(at: path), readOnly: true).view
    }

    /// Opens, reads every tree; when writable, also commits twice, closes and reopens read-only:
    /// returns the view at open and the one after the reopen.
    static func session(_ files: [String: [UInt8]], readOnly: Bool) throws -> (view: TreeView, after: TreeView?) {
        let fs = InMemoryFileSystem(files: files)
        var options = StoreOptions(fileSystem: fs)
        options.readOnly = readOnly
        options.durability = .off
        options.cacheBytes = 1 << 20
        options.lockWaitSeconds = 0
        let store = try Store.open(path: path, options: options)
        defer { try? store.close() }
        let view = try readView(store)
        guard !readOnly else { return (view, nil) }
        // The first commit allocates pages (a tree root, an overflow chain), the second frees two:
        // both ways the free list and its count change.
        try store.write { tx in
            let tree = try tx.openOrCreateTree(commitTree)
            try tree.put([1], [1])
            try tree.put([2], [UInt8](repeating: 2, count: 5000))
        }
        try store.write { _ = try $0.openOrCreateTree(commitTree).delete([2]) }
        try store.close()
        options.readOnly = true
        let again = try Store.open(path: path, options: options)
        defer { try? again.close() }
        return (view, try readView(again))
    }

    static let committedDigest: TreeDigest = {
        var d = TreeDigest()
        d.entries = 1
        d.add([1])
        d.add([1])
        return d
    }()

    /// Every tree read forwards (keys and values), then backwards.
    static func readView(_ store: Store) throws -> TreeView {
        try store.read { tx in
            var view = TreeView()
            for name in try tx.treeNames() {
                guard let tree = try tx.tree(name) else { continue }
                var digest = TreeDigest()
                let cursor = tree.cursor()
                var more = try cursor.first()
                while more {
                    digest.entries += 1; digest.add(cursor.key); digest.add(try cursor.value());
                    more = try cursor.next()
                }
                more = try cursor.last()
                while more { more = try cursor.previous() }
                view[name] = digest
            }
            return view
        }
    }

    static func differences(_ a: TreeView, _ b: TreeView) -> String {
        let names = Set(a.keys).union(b.keys).sorted().filter { a[$0] != b[$0] }
        return names.map {
            "\($0): \(a[$0].map { "\($0.entries) entries" } ?? "absent") → "
                + "\(b[$0].map { "\($0.entries) entries" } ?? "absent")"
        }
        .joined(separator: ", ")
    }
}
