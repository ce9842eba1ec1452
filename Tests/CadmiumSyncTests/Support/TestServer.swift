// The PostgreSQL of the sync tests: the one `make test` and `.ci/run` start
// (scripts/test-postgres.sh exports CADMIUM_TEST_POSTGRES_URL). Missing: the tests fail under
// CI=true and skip, saying so, elsewhere. Each test uses a scope of its own, so tests share the
// server; a test that stops a server starts a private one (`PrivateServer`).

@testable import CadmiumSync
import CdSyncTesting
import Foundation
import Testing

enum TestServer {
    /// The shared server's URL, or nil (recorded as a failure under CI=true, printed otherwise).
    static func url() -> URL? {
        if let text = ProcessInfo.processInfo.environment["CADMIUM_TEST_POSTGRES_URL"], let url = URL(string: text) {
            return url
        }
        if ProcessInfo.processInfo.environment["CI"] == "true" {
            Issue.record("CADMIUM_TEST_POSTGRES_URL is not set: the test PostgreSQL did not start (CI=true)")
        } else {
            print(
                "skipping: CADMIUM_TEST_POSTGRES_URL is not set (run `make test`, or "
                    + "`eval \"$(scripts/test-postgres.sh start)\"` first)")
        }
        return nil
    }

    /// A scope no other test uses.
    static func scope(_ name: String = #function) -> String { "\(name)-\(UUID().uuidString.prefix(8))" }

    /// The repository's root, from this file's path.
    static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
    }

    /// A directory removed by the caller.
    static func temporaryDirectory(_ name: String) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cdsync-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }
}

/// A PostgreSQL of one test's own (scripts/test-postgres.sh), which the test may pause and
/// resume (a server down and back).
final class PrivateServer: Sendable {
    let dir: String
    let url: URL

    /// Starts one; nil (after recording or printing why) when the shared one is missing too.
    static func start() async throws -> PrivateServer? {
        guard TestServer.url() != nil else { return nil }
        let dir = "/tmp/cadmium-pg-test.\(UUID().uuidString.prefix(8))"
        try await runAsync(["start", dir])
        // The script prints this URL too; it is built here so that no pipe is read (the server
        // it starts would hold a pipe's write end open).
        guard let url = URL(string: "postgres://cadmium@localhost:5432/cadmium?host=\(dir)") else {
            throw SyncTestFailure("no URL for \(dir)")
        }
        return PrivateServer(dir: dir, url: url)
    }

    private init(dir: String, url: URL) {
        self.dir = dir
        self.url = url
    }

    /// Stops the server, keeping its data (awaited without holding a thread of the cooperative
    /// pool: ChildProcess.swift).
    func pause() async throws { try await Self.runAsync(["pause", dir]) }
    /// Starts the server again on its data.
    func resume() async throws { try await Self.runAsync(["resume", dir]) }
    /// Stops the server and removes its directory (blocking: `defer` cannot await).
    func stop() { try? Self.run(["stop", dir]) }

    /// Ends every client backend of the server but the asking one (connections cut under their
    /// clients).
    func terminateClientBackends() async throws {
        let c = try await ServerConnection.open(ServerAddress(url))
        try await c.run(
            """
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'
            """, "terminating the other backends")
        await c.close()
    }

    /// Waits until some client of the server listens for announcements (its last statement is a
    /// LISTEN); false after `limit`.
    func waitForListener(limit: Duration = .seconds(30)) async throws -> Bool {
        let c = try await ServerConnection.open(ServerAddress(url))
        defer { c.closeNow() }
        let end = ContinuousClock.now + limit
        while ContinuousClock.now < end {
            let rows = try await c.run(
                "SELECT count(*) FROM pg_stat_activity WHERE query ILIKE 'LISTEN%'", "looking for a listener")
            if try rows.first?.decode(Int64.self) ?? 0 > 0 { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// Stops every process of the server with SIGSTOP (the postmaster, read from its pid file,
    /// and its children, by their IDs): connections stay open and nothing answers them. Returns
    /// the IDs for `thaw`.
    func freeze() throws -> [Int32] {
        guard let text = try? String(contentsOfFile: "\(dir)/data/postmaster.pid", encoding: .utf8),
            let first = text.split(separator: "\n").first, let postmaster = Int32(first)
        else { throw SyncTestFailure("no postmaster.pid in \(dir)/data") }
        var pids = [postmaster]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // "pid (comm) state ppid …": the parent is the second field after the command.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, Int32(fields[1]) == postmaster { pids.append(pid) }
        }
        for pid in pids { _ = kill(pid, SIGSTOP) }
        return pids
    }

    /// Lets the processes `freeze` stopped go on (SIGCONT).
    static func thaw(_ pids: [Int32]) {
        for pid in pids { _ = kill(pid, SIGCONT) }
    }

    static func run(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw failure(arguments, process.terminationStatus) }
    }

    static func runAsync(_ arguments: [String]) async throws {
        let status = try await ChildProcess(URL(fileURLWithPath: "/bin/bash"), [script] + arguments).exitStatus()
        guard status == 0 else { throw failure(arguments, status) }
    }

    private static var script: String { TestServer.root.appendingPathComponent("scripts/test-postgres.sh").path }

    private static func failure(_ arguments: [String], _ status: Int32) -> SyncTestFailure {
        SyncTestFailure("scripts/test-postgres.sh \(arguments.joined(separator: " ")) exited \(status)")
    }
}

struct SyncTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
