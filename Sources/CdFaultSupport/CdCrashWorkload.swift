// The object-level form of the crash workload (`cadmium-crash-child --cd`): the same numbered
// transactions as `CrashWorkload`, committed through `Cd.transactAndWait` as managed objects.
//
// Transaction n (n ≥ 1), one `Cd.transactAndWait`:
//  O1. creates `keyCount(n)` `CrashEntry` objects (number n, item i, payload `value(n, i)`);
//  O2. sets the one `CrashMarker`'s `last` to n (created by transaction 1);
//  O3. deletes the entries of transaction n − `window`.
//
// After any crash, with L the marker's `last` (0 and no marker for a new store): the entries are
// exactly those of transactions max(1, L − window + 1)...L, each with its payload; there is at
// most one marker. A partly visible transaction shows as a missing or extra entry.

import Cadmium
import CdStore
import Foundation

/// One entry of a crash-workload transaction.
public final class CrashEntry: CdManagedObject {
    @Attribute(.indexed) public var number: Int64 = 0
    @Attribute public var item: Int64 = 0
    @Attribute public var payload: String = ""
}

/// The number of the last transaction, in one object.
public final class CrashMarker: CdManagedObject {
    @Attribute public var last: Int64 = 0
}

public enum CdCrashWorkload {
    /// Opens the `Cd` stack on `path` with the campaign's store options (`Durability.full`), with
    /// persistent history when `history` is set.
    public static func open(path: String, history: Bool = false) throws {
        let model = try CdModel(classes: [CrashEntry.self, CrashMarker.self])
        var options = CrashWorkload.options()
        if history { options.history = .tracked }
        try Cd.initWithStore(model: model, storeURL: URL(fileURLWithPath: path), options: options)
    }

    static func payload(_ n: Int, _ i: Int) -> String { String(decoding: CrashWorkload.value(n, i), as: UTF8.self) }

    /// The last transaction number the store holds (0 for a new store).
    public static func lastNumber() throws -> Int {
        try Cd.transactAndWait { Int(try Cd.objects(CrashMarker.self).fetchOne()?.last ?? 0) }
    }

    /// Commits transaction `n` (O1–O3) through `Cd.transactAndWait`.
    public static func commit(_ n: Int) throws {
        try Cd.transactAndWait {
            for i in 0..<CrashWorkload.keyCount(n) {
                let e = try Cd.create(CrashEntry.self)
                e.number = Int64(n)
                e.item = Int64(i)
                e.payload = payload(n, i)
            }
            let marker = try Cd.objects(CrashMarker.self).fetchOne() ?? Cd.create(CrashMarker.self)
            marker.last = Int64(n)
            let old = n - CrashWorkload.window
            if old >= 1 { Cd.delete(try Cd.objects(CrashEntry.self).filter("number == %@", Int64(old)).fetch()) }
        }
    }

    /// Checks the rules at the top of this file and returns L, or throws `CrashWorkload.Violation`.
    public static func check() throws -> Int {
        try Cd.transactAndWait {
            let markers = try Cd.objects(CrashMarker.self).fetch()
            if markers.count > 1 { throw CrashWorkload.Violation("\(markers.count) markers") }
            let last = Int(markers.first?.last ?? 0)
            var expected: [String: String] = [:]
            if last >= 1 {
                for m in max(1, last - CrashWorkload.window + 1)...last {
                    for i in 0..<CrashWorkload.keyCount(m) { expected["\(m)/\(i)"] = payload(m, i) }
                }
            }
            var seen = 0
            for e in try Cd.objects(CrashEntry.self).fetch() {
                let key = "\(e.number)/\(e.item)"
                guard let want = expected[key] else {
                    throw CrashWorkload.Violation(
                        "unexpected entry \(key) with marker \(last): a transaction is partly visible")
                }
                if want != e.payload { throw CrashWorkload.Violation("entry \(key): wrong payload") }
                seen += 1
            }
            if seen != expected.count {
                throw CrashWorkload.Violation(
                    "\(seen) entries, expected \(expected.count) for marker \(last): "
                        + "a transaction is missing or partly visible"
                )
            }
            return last
        }
    }
}
