// `Cd.close()`: the end of a stack's life. New transactions and reads are refused (A1), running ones are
// waited for (their commits land), and the store is checkpointed and closed, which releases its
// file lock, so that the process can reopen the file (for example with a newer model, which
// migrates it) or hand the file on.

import Foundation
import CdObjects

extension Cd {
    /// Closes the store opened by ``initWithStore(model:storeURL:options:serialTX:)``: starts no
    /// further transaction or ``read(_:)`` (a later or queued one is misuse A1, as before
    /// initialisation), waits for the transactions running now to finish and commit, and for the
    /// reads running now to finish, checkpoints the store and closes
    /// it. Observations of its queries (``CdFetchRequest/changes()``) end: their loops finish.
    /// Afterwards `initWithStore` may open the same file again. Closing when nothing is open
    /// does nothing.
    ///
    /// - Throws: ``CdMisuse`` A2 when called inside a transaction or read body (it would wait
    ///   for itself); `CdError.store` when the final checkpoint fails (the file stays consistent:
    ///   the next open recovers from its log).
    /// ```swift
    /// try Cd.close()
    /// try Cd.initWithStore(model: newerModel, storeURL: storeURL)   // migrates the file
    /// ```
    public static func close() throws {
        if ThreadState.current.insideTransaction || ThreadState.current.context?.kind == .snapshot {
            throw Misuse.report(
                .a2,
                "Cd.close() was called inside a transaction or Cd.read body, which would wait for itself "
                    + "forever. Close the store from outside any transaction or read.")
        }
        guard let stack else { return }
        // The running bodies still reach the stack through the globals (`Cd.create`, fetches):
        // it is forgotten only once they are done; new bodies are refused from now on (MG1).
        stack.running.closeAndWait()
        globals.withLock { globals in
            if globals.stack === stack { globals.stack = nil }
        }
        // Query observations of this stack end now (a waiting `changes()` loop returns, RW1).
        ResultsObservations.end(on: stack)
        stack.stopWatchingRemoteChanges()
        try (stack.store as? ObjectStore)?.close()
    }

    /// The misuse a transaction gets when its stack was closed before the body could start.
    static func closedStackMisuse() -> CdMisuse {
        Misuse.report(
            .a1,
            "A transaction was started on a store that Cd.close() has closed. "
                + "Open it again with Cd.initWithStore(model:storeURL:serialTX:) first.")
    }
}
