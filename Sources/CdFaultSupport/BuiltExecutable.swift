// Finding and running this package's executables from tests: the crash child, `cdstore-verify`.
// SwiftPM puts every product of a build in one directory, and `swift test` builds them all, so
// they sit next to the running test binary (in `.build`, or in a sanitizer's scratch path).

import Foundation

/// An executable product of this package, located and run from a test.
public enum BuiltExecutable {
    /// What a run printed, and how it ended.
    public struct Output: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
        /// True when a signal ended the process (then `status` is the signal's number).
        public var diedOfSignal: Bool
    }

    /// The executable `name`: the path in environment variable `override` when it is set, else
    /// the one next to the running test binary.
    public static func locate(_ name: String, override: String? = nil) throws -> URL {
        if let override, let path = ProcessInfo.processInfo.environment[override] { return URL(fileURLWithPath: path) }
        let running = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let candidates = [
            running.deletingLastPathComponent(), Bundle.main.bundleURL,
            Bundle.main.bundleURL.deletingLastPathComponent(),
        ]
        for directory in candidates {
            let url = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        throw NotFound(name: name, override: override, searched: candidates.map(\.path))
    }

    /// Runs `executable` with `arguments` (and `environment` added to this process's) to its end
    /// and returns what it printed.
    public static func run(_ executable: URL, arguments: [String], environment: [String: String] = [:]) throws -> Output
    {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self), diedOfSignal: process.terminationReason == .uncaughtSignal)
    }

    /// No executable of that name where a build puts it.
    public struct NotFound: Error, CustomStringConvertible {
        public var name: String
        public var override: String?
        public var searched: [String]
        public var description: String {
            "\(name) not found in \(searched); build it (`swift build --product \(name)`)"
                + (override.map { " or set \($0)" } ?? "")
        }
    }
}
