// Several replicas of the test model, each a store of its own, on one server and scope.

import CadmiumSync
import CdObjects
import CdSyncTesting
import Foundation
import Testing

/// `count` replicas of one scope in a temporary directory; `close()` removes them.
final class ReplicaSet: Sendable {
    let replicas: [TestReplica]
    let dir: URL
    let scope: String
    let server: URL

    /// Replicas whose pulls read pages of 2 objects: every test on a set pulls in many pages
    /// (PG1–PG4 of SyncEngine+Pull.swift), so its expectations hold for paged pulls too.
    convenience init(_ count: Int, server: URL, scope: String, options: SyncEngineOptions = .smallPages) throws {
        try self.init(server: server, scope: scope, options: Array(repeating: options, count: count))
    }

    /// One replica per element of `options`, each with its own (a clock skewed on one of them).
    init(server: URL, scope: String, options: [SyncEngineOptions]) throws {
        let dir = try TestServer.temporaryDirectory(scope)
        self.dir = dir
        self.scope = scope
        self.server = server
        replicas = try options.enumerated().map { i, o in
            try TestReplica(
                path: dir.appendingPathComponent("r\(i).cdstore").path, server: server, scope: scope, options: o)
        }
    }

    subscript(i: Int) -> TestReplica { replicas[i] }

    /// Syncs every replica twice over (so each sees every other's pushes).
    func syncAll() async throws {
        for _ in 0..<2 {
            for r in replicas { try await r.engine.syncNow() }
        }
    }

    /// Every replica's canonical state equals the first's; returns it.
    @discardableResult
    func expectConverged(sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: String] {
        let first = try replicas[0].canonicalState()
        for (i, r) in replicas.enumerated().dropFirst() {
            let state = try r.canonicalState()
            if state != first {
                let differing = Set(first.keys).union(state.keys).filter { first[$0] != state[$0] }.sorted().prefix(5)
                let lines = differing.map { "\($0):\n  r0: \(first[$0] ?? "-")\n  r\(i): \(state[$0] ?? "-")" }
                Issue.record(
                    "replica \(i) differs from replica 0:\n\(lines.joined(separator: "\n"))",
                    sourceLocation: sourceLocation)
            }
        }
        return first
    }

    func close() async {
        for r in replicas { try? await r.close() }
        try? FileManager.default.removeItem(at: dir)
    }
}

extension SyncEngineOptions {
    /// The defaults, with pulls in pages of 2 objects.
    static var smallPages: SyncEngineOptions {
        var options = SyncEngineOptions()
        options.pullPageSize = 2
        return options
    }
}

extension PropertyValue {
    static func string(_ s: String) -> PropertyValue { .attribute(.string(s)) }
}
