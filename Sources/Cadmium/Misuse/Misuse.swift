// Reporting a misuse (the checks A1 to K2 of `CdMisuse.Kind`): the message gets the thread's name
// appended, goes to `Cd.misuseHandler`, and the caller gets the `CdMisuse` to throw if the handler
// returns.

import Foundation
import CdObjects

/// Reports misuse: calls the handler, then lets the caller throw or skip.
enum Misuse {
    /// Reports `kind` and returns the error a throwing caller throws.
    @discardableResult
    static func report(_ kind: CdMisuse.Kind, _ message: String) -> CdMisuse {
        let misuse = CdMisuse(kind: kind, message: message + " [thread: \(ThreadState.threadName)]")
        Cd.currentMisuseHandler()(misuse)
        return misuse
    }
}
