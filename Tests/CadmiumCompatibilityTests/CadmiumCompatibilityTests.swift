// Runs `cadmium-compatibility-app` — code written in Cadmium's call forms, compiled against the
// `Cadmium` module — in a process of its own (the `Cd` API is global state, and the other test
// targets use it meanwhile), and expects every one of its checks to pass. That the app compiled
// at all is the signature half of the test: this target depends on it.

import CdFaultSupport
import Foundation
import Testing

@Suite struct CadmiumCompatibility {
    /// Every check the app runs, in order; one missing from its output fails the test.
    static let checks = [
        "signatures",
        "tests.basicQueries", "tests.sortingQueries", "tests.basicModification", "tests.basicCreate",
        "tests.basicUseInCurrentContext", "tests.multiCreate", "tests.basicDictionary",
        "tests.dictionaryExpressionGrouping", "tests.basicDelete", "tests.multiDelete",
        "tests.createTransientMainInsertLater", "tests.forbidModificationOnMainThread",
        "tests.forbidModificationInOtherTx", "tests.forbidReusingTransient", "tests.forbidCreateMain",
        "tests.forbidDeleteMain", "tests.parallelSerial", "tests.parallelSerialUsingQueues",
        "tests.transactionInTransactionDoesntHang", "tests.callersQueueTargetsTheSerialQueue",
        "tests.transactAndWaitWith",
        "readme.firstExample", "readme.transactions", "readme.implicitCommit", "readme.serialTransactions",
        "readme.createAndDelete",
        "readme.useInCurrentContext", "readme.notifyingTheMainThread",
        "example.addTapDelete",
    ]

    @Test func cadmiumCodeRunsWithCadmiumsResults() throws {
        let app = try BuiltExecutable.locate("cadmium-compatibility-app")
        let output = try BuiltExecutable.run(app, arguments: [])
        let lines = output.stdout.split(separator: "\n").map(String.init)
        for line in lines where !line.hasPrefix("ok ") { Issue.record("\(line)") }
        #expect(lines == Self.checks.map { "ok \($0)" }, "stderr: \(output.stderr)")
        #expect(output.status == 0 && !output.diedOfSignal, "stderr: \(output.stderr)")
    }
}
