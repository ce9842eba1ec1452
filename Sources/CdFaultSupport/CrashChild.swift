// Running `cadmium-crash-child` from a test: start it, kill it with SIGKILL at a moment drawn from
// a seeded generator, and collect what it said (docs/TESTING.md, campaign 1).

#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// What one run of the child said before it died.
public struct CrashChildRun: Sendable {
    /// The transaction number the child found in the store when it opened it.
    public var opened: Int?
    /// The acknowledged transaction numbers, in order.
    public var acks: [Int] = []
    /// Whether it died of the SIGKILL (and not of something else first).
    public var exitedBySIGKILL = false
    /// What it wrote to stderr.
    public var stderr = ""
}

public enum CrashChild {
    /// The child's executable: `CADMIUM_CRASH_CHILD`, else next to the running test binary (the
    /// test targets depend on the child, so `swift test` builds it).
    public static func executable() throws -> URL {
        try BuiltExecutable.locate("cadmium-crash-child", override: "CADMIUM_CRASH_CHILD")
    }

    /// Starts the child with `arguments` and kills it: a quarter of the time 0–25 ms after the
    /// start (start-up, open, recovery, the opening checkpoint), else after 0–6 ACKs plus 0–4 ms
    /// (inside a commit, a checkpoint, or between them). ACKs still in the pipe after the kill
    /// count: they were sent.
    public static func runAndKill<G: RandomNumberGenerator>(
        _ child: URL, arguments: [String], rng: inout G
    ) throws -> CrashChildRun {
        let early = Int.random(in: 0..<4, using: &rng) == 0
        let earlyDelay = UInt32.random(in: 0..<25_000, using: &rng)
        let acksBeforeKill = Int.random(in: 0...6, using: &rng)
        let lateDelay = UInt32.random(in: 0..<4_000, using: &rng)
        let process = Process()
        process.executableURL = child
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let pid = process.processIdentifier
        // A child that hangs is killed by the watchdog and shows as having made no progress.
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: watchdog)
        var run = CrashChildRun()
        var pending = Data()
        func consume(_ data: Data) {
            pending.append(data)
            while let nl = pending.firstIndex(of: 0x0A) {
                let parts = String(decoding: pending[pending.startIndex..<nl], as: UTF8.self).split(separator: " ")
                pending.removeSubrange(pending.startIndex...nl)
                guard parts.count == 2, let n = Int(parts[1]) else { continue }
                if parts[0] == "ACK" { run.acks.append(n) } else if parts[0] == "OPEN" { run.opened = n }
            }
        }
        if early {
            usleep(earlyDelay)
        } else {
            while run.opened == nil || run.acks.count < acksBeforeKill {
                let data = out.fileHandleForReading.availableData
                if data.isEmpty { break }  // the child exited on its own
                consume(data)
            }
            usleep(lateDelay)
        }
        kill(pid, SIGKILL)
        process.waitUntilExit()
        watchdog.cancel()
        consume(out.fileHandleForReading.readDataToEndOfFile())
        run.stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        run.exitedBySIGKILL = process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL
        return run
    }

    /// Runs the child to completion (`--check` mode) and returns its exit status and output.
    public static func runToEnd(
        _ child: URL, arguments: [String]
    ) throws -> (status: Int32, stdout: String, stderr: String) {
        let output = try BuiltExecutable.run(child, arguments: arguments)
        return (output.status, output.stdout, output.stderr)
    }
}
