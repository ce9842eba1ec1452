// What the shared-file campaign does with one hostile word, and the rules it checks. Two stores
// (two processes: an in-memory file system shares its regions between handles) write a tree of
// known values and leave the shared file as a running pair of processes does; the word is set;
// then both go on — reads, writes from each, a checkpoint, a third process opening beside them,
// the verifier — and at the end every store closes and a last one opens alone:
//
//   1. every read returns each key's last acknowledged value (or a value whose write threw), and
//      no key nobody wrote: never a stale or wrong answer — the third process's too, whose open
//      must index the commit written after the checkpoint from the WAL;
//   2. every call ends or throws a StoreError (a trap or a hang ends the child: the driver reports
//      it with the case);
//   3. the verifier, beside the live stores, finds no problem (the files are undamaged), or throws
//      only notAStore / unsupportedFormatVersion;
//   4. the store opened alone at the end reads rule 1's answers and verifies clean.

import CdStore

public enum SharedFileCaseRunner {
    static let path = "/shared.cdstore"
    static let tree = "t"

    static func options(_ fs: InMemoryFileSystem) -> StoreOptions {
        var o = StoreOptions(fileSystem: fs)
        o.pageSize = 4096
        o.durability = .normal
        o.checkpointThresholdBytes = 16 * 1024
        o.cacheBytes = 1 << 20
        return o
    }

    /// What each key may read: its last acknowledged value, and values whose writes threw.
    struct Ledger {
        var acknowledged: [String: [UInt8]] = [:]
        var uncertain: [String: [[UInt8]]] = [:]

        func problem(in view: [String: [UInt8]], reader: String) -> String? {
            for (key, value) in view.sorted(by: { $0.key < $1.key }) {
                if value == acknowledged[key] || uncertain[key, default: []].contains(value) { continue }
                return "\(reader) read \(key) = \(value.count) bytes that nobody wrote last"
                    + (acknowledged[key] == nil ? " (the key was never acknowledged)" : "")
            }
            if let lost = acknowledged.keys.sorted().first(where: { view[$0] == nil }) {
                return "\(reader) does not see \(lost), acknowledged"
            }
            return nil
        }
    }

    static func value(_ n: Int) -> [UInt8] {
        Array("v\(n)-".utf8) + [UInt8](repeating: UInt8(n & 0xFF), count: n * 37 % 900)
    }

    /// Two stores, seeded: the shared file as the campaign finds it before a change.
    static func seeded(_ fs: InMemoryFileSystem, ledger: inout Ledger) throws -> (Store, Store) {
        let a = try Store.open(path: path, options: options(fs))
        let b = try Store.open(path: path, options: options(fs))
        for i in 0..<24 {
            let key = "k\(i % 12)", v = value(i)
            try (i % 2 == 0 ? a : b).write { try $0.openOrCreateTree(tree).put(Array(key.utf8), v) }
            ledger.acknowledged[key] = v
        }
        _ = try b.read { try $0.tree(tree)?.get(Array("k0".utf8)) }
        return (a, b)
    }

    /// The shared file's words and the WAL's size after seeding (for choosing hostile values).
    static func wordsBeforeTheChange() throws -> (words: [UInt64], walSize: Int) {
        let fs = InMemoryFileSystem()
        var ledger = Ledger()
        let (a, b) = try seeded(fs, ledger: &ledger)
        defer {
            try? b.close()
            try? a.close()
        }
        let memory = fs.sharedMemory(of: path + "-shm")!
        let words = (0..<(SharedStateLayout.size / 8)).map { memory.load(fromByteOffset: $0 * 8, as: UInt64.self) }
        let wal = try fs.open(path + "-wal", mode: .readOnly)
        defer { try? wal.close() }
        return (words, Int(try wal.size()))
    }

    /// Runs the case and checks rules 1–4.
    public static func run(_ c: SharedFileCase) -> StructureCaseResult {
        let fs = InMemoryFileSystem()
        var ledger = Ledger()
        var readError: String?, writeError: String?, violation: String?
        var problems = 0
        func broke(_ message: String) { if violation == nil { violation = message } }
        func attempt<T>(_ what: String, write: Bool, _ body: () throws -> T) -> T? {
            do { return try body() } catch let error as StoreError {
                if write {
                    writeError = writeError ?? "\(what): \(error)"
                } else {
                    readError = readError ?? "\(what): \(error)"
                }
            } catch { broke("\(what) threw a non-StoreError: \(error)") }
            return nil
        }
        func read(_ store: Store?, _ name: String) {
            guard let store else { return }
            let view: [String: [UInt8]]? = attempt("\(name) read", write: false) {
                try store.read { tx in
                    var view: [String: [UInt8]] = [:]
                    try tx.tree(tree)?.scan { k, v in
                        view[String(decoding: k, as: UTF8.self)] = v; return true
                    }
                    return view
                }
            }
            if let view, let problem = ledger.problem(in: view, reader: name) { broke(problem) }
        }
        func put(_ store: Store?, _ name: String, _ n: Int) {
            guard let store else { return }
            let key = "k\(n % 16)", v = value(n)
            let done: Void? = attempt("\(name) write", write: true) {
                try store.write { try $0.openOrCreateTree(tree).put(Array(key.utf8), v) }
            }
            if done != nil {
                ledger.acknowledged[key] = v; ledger.uncertain[key] = nil
            } else {
                ledger.uncertain[key, default: []].append(v)
            }
        }
        let stores: (Store, Store)
        do { stores = try seeded(fs, ledger: &ledger) } catch {
            return StructureCaseResult(
                readOnlyError: nil, writableError: nil, verifierProblems: 0, violation: "seeding failed: \(error)")
        }
        let (a, b) = stores
        let memory = fs.sharedMemory(of: path + "-shm")!
        memory.storeBytes(of: c.value, toByteOffset: c.field.word * 8, as: UInt64.self)
        if c.field.inState {
            let state = SharedStateLayout.stateWords.map { memory.load(fromByteOffset: $0 * 8, as: UInt64.self) }
            memory.storeBytes(
                of: SharedStoreState.crc(state), toByteOffset: SharedStateLayout.stateCRCWord * 8, as: UInt64.self)
        }
        read(b, "the other process")
        read(a, "the changing process")
        for n in 100..<108 { put(n % 2 == 0 ? a : b, n % 2 == 0 ? "the changing process" : "the other process", n) }
        read(b, "the other process")
        read(a, "the changing process")
        _ = attempt("a checkpoint", write: true) { try a.checkpoint() }
        put(b, "the other process", 110)
        let third = attempt("a third process's open", write: false) { try Store.open(path: path, options: options(fs)) }
        read(third, "a third process")
        put(third, "a third process", 120)
        read(a, "the changing process")
        var verifierOptions = VerifierOptions(fileSystem: fs)
        verifierOptions.maxProblems = 5
        do {
            let report = try StoreVerifier.verify(path: path, options: verifierOptions)
            problems = report.problemCount
            if problems > 0 {
                broke("the verifier found \(problems) problems in undamaged files: \(report.problems.prefix(2))")
            }
        } catch let error as StoreError {
            switch error {
            case .notAStore, .unsupportedFormatVersion: problems = -1
            default: readError = readError ?? "the verifier: \(error)"
            }
        } catch { broke("the verifier threw a non-StoreError: \(error)") }
        for (store, name) in [(third, "third"), (b, "other"), (a, "changing")] {
            _ = attempt("the \(name) process's close", write: true) { try store?.close() }
        }
        // Rule 4: alone, the files say everything.
        do {
            let last = try Store.open(path: path, options: options(fs))
            read(last, "the store opened at the end")
            try last.close()
            let report = try StoreVerifier.verify(path: path, options: verifierOptions)
            if !report.isClean { broke("at the end the verifier found \(report.problems.prefix(2))") }
        } catch { broke("the store opened at the end failed: \(error)") }
        return StructureCaseResult(
            readOnlyError: readError, writableError: writeError, verifierProblems: problems, violation: violation)
    }
}
