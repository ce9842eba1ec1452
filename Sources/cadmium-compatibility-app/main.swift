// `cadmium-compatibility-app`: code written in Cadmium's call forms (CadmiumCallForms.swift),
// compiled against this module and run. If a signature drifts from Cadmium's, this target no
// longer compiles; if a behaviour drifts, a check prints `FAIL`. The test target
// CadmiumCompatibilityTests runs it in a process of its own (the `Cd` API is global state) and
// expects every check to print `ok`.
//
// The main thread runs the main queue (`dispatchMain()`), as an app's run loop would. The
// checks run one after the other on a background thread; the parts that Cadmium's tests and
// example app run on the main thread run there through `DispatchQueue.main.sync`.

import Cadmium
import Foundation

/// The outcome of the checks, printed one line each.
final class Report: @unchecked Sendable {
    // @unchecked: `failures` is behind `lock`.
    private let lock = NSLock()
    private var failures: [String] = []

    /// Records a failed expectation of the running check.
    func expect(_ condition: Bool, _ what: String, line: Int = #line) {
        guard !condition else { return }
        lock.lock()
        failures.append("\(what) (line \(line))")
        lock.unlock()
    }

    /// Runs `check`, then prints `ok <name>` or `FAIL <name>: …`; true when it passed.
    func run(_ name: String, _ check: () throws -> Void) -> Bool {
        lock.lock()
        failures = []
        lock.unlock()
        do {
            try check()
        } catch {
            expect(false, "threw \(error)")
        }
        lock.lock()
        let failed = failures
        lock.unlock()
        print(failed.isEmpty ? "ok \(name)" : "FAIL \(name): \(failed.joined(separator: "; "))")
        fflush(nil)
        return failed.isEmpty
    }
}

let report = Report()
Thread.detachNewThread {
    var passed = true
    let bundle = (try? TestBundle.make()) ?? "missing"
    for (name, check) in compatibilityChecks(report, bundle: bundle) {
        passed = report.run(name, check) && passed
    }
    TestBundle.remove(bundle)
    exit(passed ? 0 : 1)
}
dispatchMain()
