// `Cd.close()`: the end of a container's life. New transactions and reads are refused (A1), running ones are
// waited for (their commits land), and the store is checkpointed and closed, which releases its
// file lock, so that the process can reopen the file (for example with a newer model, which
// migrates it) or hand the file on.

import Foundation
import CdObjects

extension Cd {
    /// Closes the store opened by ``initWithStore(model:storeURL:options:serialTX:)``: starts no
    /// further transaction or ``read(_:)`` (a later or queued one is misuse A1, as before
    /// initialisation), waits for the transactions running now to finish and commit, and for the
    /// reads running now to finish, checkpoints the store and closes it (``CdContainer/close()``
    /// of the default container; a store another container of this process, or a SwiftData
    /// `ModelContainer`, has open stays open for it). Observations of its queries
    /// (``CdFetchRequest/changes()``) end: their loops finish. Afterwards `initWithStore` may open
    /// the same file again. Closing when nothing is open does nothing.
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
        // The default container is forgotten only once its running bodies are done (they reach it
        // through their contexts, CN2); `CdContainer.close()` refuses new bodies first (MG1).
        try defaultContainer?.close()
    }

    /// The misuse a transaction gets when its container was closed before the body could start.
    static func closedContainerMisuse() -> CdMisuse {
        Misuse.report(
            .a1,
            "A transaction was started on a store that Cd.close() has closed. "
                + "Open it again with Cd.initWithStore(model:storeURL:serialTX:) first.")
    }
}
