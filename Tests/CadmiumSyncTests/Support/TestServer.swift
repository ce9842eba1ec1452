// The PostgreSQL of the sync tests: the one `make test` and `.ci/run` start
// (scripts/test-postgres.sh exports CADMIUM_TEST_POSTGRES_URL). Missing: the tests fail under
// CI=true and skip, saying so, elsewhere. Each test uses a scope of its own, so tests share the
// server; a test that stops a server starts a private one (`PrivateServer`).

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
    static func start() throws -> PrivateServer? {
        guard TestServer.url() != nil else { return nil }
        let dir = "/tmp/cadmium-pg-test.\(UUID().uuidString.prefix(8))"
        try run(["start", dir])
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

    func pause() throws { try Self.run(["pause", dir]) }
    func resume() throws { try Self.run(["resume", dir]) }
    func stop() { try? Self.run(["stop", dir]) }

    static func run(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [TestServer.root.appendingPathComponent("scripts/test-postgres.sh").path] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw SyncTestFailure(
                "scripts/test-postgres.sh \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
        }
    }
}

struct SyncTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
