// Child processes of the sync tests (replica processes, scripts/test-postgres.sh), awaited
// without holding a thread of the cooperative pool: `Process.waitUntilExit` blocks its thread
// until the child ends, and the pool has one thread per core — two such waits on a 2-core
// machine leave no thread for anything else in the test process, the sync engines included.
//
// Output goes to files, never to pipes: a pipe's write end is inherited by every process started
// while it is open (a PostgreSQL server started by a parallel test keeps it for its lifetime), so
// reading a pipe to its end can wait for ever.

import Foundation
import Synchronization

/// A started child process whose end can be awaited.
final class ChildProcess: Sendable {
    /// The exit status once known, and the tasks waiting for it.
    private final class Exit: Sendable {
        let state = Mutex<(status: Int32?, waiters: [CheckedContinuation<Int32, any Error>])>((nil, []))
    }

    private let process: Process
    private let ended = Exit()
    let outputPath: String?

    /// Starts `executable` with `arguments`; its standard output and error go to `outputPath`
    /// (or nowhere).
    init(_ executable: URL, _ arguments: [String], outputPath: String? = nil) throws {
        let ended = self.ended
        self.outputPath = outputPath
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let outputPath {
            _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
            process.standardOutput = handle
            process.standardError = handle
        } else {
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
        }
        process.terminationHandler = { p in
            let status = p.terminationStatus
            let waiters = ended.state.withLock { e -> [CheckedContinuation<Int32, any Error>] in
                e.status = status
                defer { e.waiters = [] }
                return e.waiters
            }
            for w in waiters { w.resume(returning: status) }
        }
        self.process = process
        try process.run()
    }

    var processIdentifier: Int32 { process.processIdentifier }

    /// The exit status (or the signal's number), once the child has ended; throws
    /// `CancellationError` when the waiting task is cancelled first (a test's time limit), so
    /// that a child that never ends fails the test instead of hanging it.
    func exitStatus() async throws -> Int32 {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { c in
                let status = ended.state.withLock { e -> Int32? in
                    if e.status == nil { e.waiters.append(c) }
                    return e.status
                }
                if let status { c.resume(returning: status) }
                // Keeps the cancellation from being missed when it came before the registration.
                if Task.isCancelled { cancelWaiters() }
            }
        } onCancel: {
            cancelWaiters()
        }
    }

    private func cancelWaiters() {
        let waiters = ended.state.withLock { e -> [CheckedContinuation<Int32, any Error>] in
            defer { e.waiters = [] }
            return e.waiters
        }
        for w in waiters { w.resume(throwing: CancellationError()) }
    }

    /// Sends SIGKILL and waits for the end.
    func kill() async throws {
        _ = Foundation.kill(process.processIdentifier, SIGKILL)
        _ = try await exitStatus()
    }

    /// What the child wrote so far.
    var output: String {
        guard let outputPath, let data = FileManager.default.contents(atPath: outputPath) else { return "" }
        return String(decoding: data, as: UTF8.self)
    }
}
