// One `cadmium-crash-child --bank` process of the several-processes campaign: started, read in
// the background (its ACKs are collected as they arrive) and killed with SIGKILL.

#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A running bank child and the commits it acknowledged (BankWorkload BK2).
public final class BankChild: @unchecked Sendable {
    public let tag: String
    private let process = Process()
    private let out = Pipe(), err = Pipe()
    private let state = NSLock()
    private var acknowledged = 0
    private var errors = Data()
    private let reader = DispatchGroup()

    /// Starts `child --bank path tag`.
    public init(_ child: URL, path: String, tag: String) throws {
        self.tag = tag
        process.executableURL = child
        process.arguments = ["--bank", path, tag]
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let handle = out.fileHandleForReading, errors = err.fileHandleForReading
        DispatchQueue.global().async(group: reader) { [self] in
            var pending = Data()
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                pending.append(data)
                while let nl = pending.firstIndex(of: 0x0A) {
                    let line = String(decoding: pending[pending.startIndex..<nl], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...nl)
                    let parts = line.split(separator: " ")
                    if parts.count == 2, parts[0] == "ACK", let n = Int(parts[1]) {
                        state.withLock { acknowledged = max(acknowledged, n) }
                    }
                }
            }
        }
        DispatchQueue.global().async(group: reader) { [self] in
            let data = errors.readDataToEndOfFile()
            state.withLock { self.errors.append(data) }
        }
    }

    /// The last commit it acknowledged so far.
    public var lastAcknowledged: Int { state.withLock { acknowledged } }

    /// Whether it is still running.
    public var isRunning: Bool { process.isRunning }

    /// Kills it with SIGKILL, waits for it and its output; returns the last commit it acknowledged
    /// (ACKs still in the pipe count: they were sent), whether the kill was what ended it, and
    /// what it wrote to stderr.
    public func kill() -> (acknowledged: Int, killed: Bool, stderr: String) {
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        reader.wait()
        let killed = process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL
        return state.withLock { (acknowledged, killed, String(decoding: errors, as: UTF8.self)) }
    }
}
