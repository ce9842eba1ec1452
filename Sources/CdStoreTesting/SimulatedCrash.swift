// The error of a simulated process death in `FaultInjectingFileSystem` (`FaultAction.crash`).

import CdStore

/// The error every call throws once a `FaultAction.crash` has fired: the simulated process is
/// dead. Deliberately not a `StoreError`, so engine code cannot mistake it for an I/O error it
/// may handle; a crash test catches it, then calls `powerLoss(seed:mode:)` and reopens.
///
/// ```swift
/// do { try commit(on: fs) } catch let crash as SimulatedCrash { print("died at", crash) }
/// ```
public struct SimulatedCrash: Error, Sendable, Equatable, CustomStringConvertible {
    /// The number of the operation at which the process died.
    public let operation: Int
    /// What that operation was.
    public let kind: FileOperationKind
    /// Its path.
    public let path: String

    /// The crash at operation number `operation`, a `kind` on `path`.
    package init(operation: Int, kind: FileOperationKind, path: String) {
        self.operation = operation
        self.kind = kind
        self.path = path
    }

    public var description: String {
        "simulated crash at operation #\(operation) (\(kind.rawValue) \(path))"
    }
}
