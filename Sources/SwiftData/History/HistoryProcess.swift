// Which process saved a transaction. The store's history header records an author and a context
// name per transaction (docs/FORMAT.md §History) and no process; a SwiftData context has no name
// of its own, so this module records the saving process in the context name, as
//
//   swiftdata:<process identifier>:<bundle identifier>
//
// and reads `DefaultHistoryTransaction.processIdentifier` / `bundleIdentifier` back from it.
// A context name of any other form (a commit of the `Cd` API, of another tool) reads as empty
// identifiers (TX2 in HistoryTransaction.swift).

import Foundation

/// The saving process, as recorded in a transaction's context name.
struct HistoryProcess: Equatable {
    /// The process identifier, in decimal.
    let processIdentifier: String
    /// The bundle identifier, or the process name when the main bundle has none (Linux
    /// executables usually have none).
    let bundleIdentifier: String

    private static let prefix = "swiftdata:"

    /// This process.
    static let current = HistoryProcess(
        processIdentifier: String(ProcessInfo.processInfo.processIdentifier),
        bundleIdentifier: Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName)

    /// The context name that records this process.
    var contextName: String { Self.prefix + processIdentifier + ":" + bundleIdentifier }

    /// The process a context name records; empty identifiers for a name of another form.
    init(contextName: String?) {
        guard let name = contextName, name.hasPrefix(Self.prefix) else {
            self.init(processIdentifier: "", bundleIdentifier: "")
            return
        }
        let rest = name.dropFirst(Self.prefix.count)
        guard let colon = rest.firstIndex(of: ":"), !rest[..<colon].isEmpty, rest[..<colon].allSatisfy(\.isNumber)
        else {
            self.init(processIdentifier: "", bundleIdentifier: "")
            return
        }
        self.init(
            processIdentifier: String(rest[..<colon]), bundleIdentifier: String(rest[rest.index(after: colon)...]))
    }

    init(processIdentifier: String, bundleIdentifier: String) {
        self.processIdentifier = processIdentifier
        self.bundleIdentifier = bundleIdentifier
    }
}
