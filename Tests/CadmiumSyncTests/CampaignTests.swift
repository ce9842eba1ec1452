// The convergence campaign (docs/SYNC.md, Testing): 4 replica processes on one private
// PostgreSQL run the seeded workload while the harness injects faults — SIGKILL of a replica
// (started again on its store), the server stopped (`pg_ctl -m immediate`) and started again,
// every replica's connection ended by `pg_terminate_backend`, duplicated pushes (replica 2), a
// clock two minutes ahead (replica 3), pulls in pages of 3 objects (replicas 0 and 1, so that a
// kill or a cut connection often falls between the pages of a pull). Then the faults heal,
// every replica syncs, and the harness checks: every replica equals every other and the
// server; every local commit is acknowledged
// exactly once (no pending transaction, the server's position equals the replica's, and the
// pairs of notes the replicas created are on the server once each); no replica
// showed half of a transaction (the workload's pair check, exit status 3); every store verifies;
// no acknowledged create vanished without trace (CreateLossOracle.swift).
//
// `make test` runs CADMIUM_SYNC_CAMPAIGN_SEEDS=1 seed of 4 replicas × 60 steps; `make
// sync-campaign` runs more and longer. CADMIUM_SYNC_CAMPAIGN_SEED=N runs one seed.

@testable import CadmiumSync
import CdFaultSupport
import CdObjects
import CdStoreTesting
import CdSyncTesting
import Foundation
import Testing

// The seeds run one after another (`.serialized`): each already runs 4 replica processes and a
// server, and ten seeds at once on a small machine (40 processes) only made every seed slower —
// all ten of `make sync-campaign` passed their 5-minute limit that way, on a 2-core machine.
@Suite("Sync: convergence campaign", .serialized) struct CampaignTests {
    static var seeds: [UInt64] {
        let env = ProcessInfo.processInfo.environment
        if let one = env["CADMIUM_SYNC_CAMPAIGN_SEED"].flatMap(UInt64.init) { return [one] }
        let count = env["CADMIUM_SYNC_CAMPAIGN_SEEDS"].flatMap(Int.init) ?? 1
        return (0..<UInt64(count)).map { 7_919 &* ($0 + 1) }
    }

    static var steps: Int {
        ProcessInfo.processInfo.environment["CADMIUM_SYNC_CAMPAIGN_STEPS"].flatMap(Int.init) ?? 60
    }

    /// A seed's time limit: 5 minutes, and one more per 40 steps past 200 (`make sync-campaign`'s
    /// 400 steps: 10 minutes; its per-seed times are in docs/BENCHMARKS.md, Sync).
    static var minutes: Int { 5 + max(0, steps - 200) / 40 }

    /// The faults the harness injects, one per round, in the order a seed draws them.
    enum Fault: CaseIterable {
        case killReplica, stopServer, terminateBackends
    }

    @Test(.timeLimit(.minutes(minutes)), arguments: seeds) func replicasConvergeAfterFaults(seed: UInt64) async throws {
        guard let server = try await PrivateServer.start() else { return }
        defer { server.stop() }
        print("sync campaign seed \(seed) (CADMIUM_SYNC_CAMPAIGN_SEED=\(seed) reruns it), \(Self.steps) steps")
        let began = ContinuousClock.now
        let executable = try BuiltExecutable.locate("cadmium-sync-replica")
        let dir = try TestServer.temporaryDirectory("campaign-\(seed)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let scope = "campaign-\(seed)"
        let count = 4
        var random = SplitMix64(seed: seed)
        func launch(_ i: Int, run: Int) throws -> ChildProcess {
            var args = [
                dir.appendingPathComponent("r\(i).cdstore").path, server.url.absoluteString, scope, "\(i)",
                "\(seed &+ UInt64(run) &* 101)", "\(Self.steps)",
            ]
            args.append(i == 3 ? "120000" : "0")  // replica 3's clock runs two minutes ahead
            if i == 2 { args.append("--duplicate-pushes") }
            if i < 2 { args += ["--page-size", "3"] }  // pulls of many pages, killed between two (PG5)
            return try ChildProcess(
                executable, args, outputPath: dir.appendingPathComponent("r\(i)-\(run).log").path)
        }
        var processes = try (0..<count).map { try launch($0, run: 0) }
        var runs = [Int](repeating: 0, count: count)
        var injected: [String] = []
        for _ in 0..<6 {
            try await Task.sleep(for: .milliseconds(Int.random(in: 150...400, using: &random)))
            switch Fault.allCases.randomElement(using: &random)! {
            case .killReplica:
                let victim = Int.random(in: 0..<count, using: &random)
                try await processes[victim].kill()
                runs[victim] += 1
                processes[victim] = try launch(victim, run: runs[victim])
                injected.append("SIGKILL r\(victim)")
            case .stopServer:
                try await server.pause()
                try await Task.sleep(for: .milliseconds(Int.random(in: 100...600, using: &random)))
                try await server.resume()
                injected.append("server stop")
            case .terminateBackends:
                try await server.terminateClientBackends()
                injected.append("backends terminated")
            }
        }
        for (i, p) in processes.enumerated() {
            let status = try await p.exitStatus()
            #expect(status == 0, "replica \(i) exited with \(status) (3: it showed half a transaction):\n\(p.output)")
            print("sync campaign seed \(seed): \(p.output.split(separator: "\n").last ?? "replica \(i): no output")")
        }
        // The faults have healed: every replica syncs until all agree.
        let healed = ContinuousClock.now
        let replicas = try (0..<count).map {
            try TestReplica(path: dir.appendingPathComponent("r\($0).cdstore").path, server: server.url, scope: scope)
        }
        for _ in 0..<3 { for r in replicas { try await r.engine.syncNow() } }
        let converge = ContinuousClock.now - healed
        let first = try replicas[0].canonicalState()
        for (i, r) in replicas.enumerated() {
            let state = try r.canonicalState()
            #expect(state == first, "replica \(i) differs from replica 0")
            let status = try await r.engine.status()
            #expect(status.pendingTransactions == 0, "replica \(i) has unpushed transactions")
            let problems = try r.store.read { try ObjectStoreVerifier().verify($0.transactionForVerification) }
            #expect(problems.isEmpty, "replica \(i): \(problems.prefix(3))")
            let connection = try await ServerConnection.open(ServerAddress(server.url))
            let position = try await connection.replicaPosition(scope, try #require(status.replicaID))
            await connection.close()
            #expect(position?.number == status.acknowledgedTransaction, "replica \(i): the server's position differs")
        }
        // The server's state is the replicas'.
        let serverState = try await ServerState.read(server.url, scope: scope)
        let replicaWire = try replicas[0].store.read {
            try WireState.of($0, schema: SyncSchema(model: replicas[0].store.model, entities: SyncTestModel.entities))
        }
        if serverState != replicaWire {
            let lines = try await CampaignDiagnosis.differences(
                server: serverState, replica: replicaWire, replicas: replicas, url: server.url, scope: scope)
            Issue.record("the server's objects differ from the replicas':\n\(lines.joined(separator: "\n"))")
        }
        // Exactly once, counted: the pairs of notes (never edited or deleted) that the replicas'
        // own transactions created are on the server, each once — none lost, none applied twice.
        var pairTransactions = 0
        for r in replicas {
            pairTransactions += try r.store.history(after: nil).filter { t in
                t.author != PushCollector.author
                    && t.changes.filter { $0.kind == .insert && $0.objectID.entity == "Note" }.count == 2
            }.count
        }
        let pairNotes = serverState.values.filter { $0.hasPrefix("Note ") && $0.contains("\"pair ") }.count
        #expect(pairNotes == 2 * pairTransactions, "\(pairTransactions) pairs created, \(pairNotes) pair notes")
        // No acknowledged create vanished without trace (CreateLossOracle.swift).
        let creates = try await CreateLossOracle.check(replicas, server: server.url, scope: scope)
        #expect(creates.problems.isEmpty, "lost creates:\n\(creates.problems.prefix(10).joined(separator: "\n"))")
        let conflicts = try await ServerState.conflictCount(server.url, scope: scope)
        print(
            "sync campaign seed \(seed): \(first.count) objects, \(creates.creates) local creates, "
                + "\(creates.tombstones) tombstones and \(pairTransactions) pairs checked, "
                + "faults: \(injected.joined(separator: ", ")); "
                + "\(conflicts) conflict losses, converged \(converge) after the faults healed; "
                + "\(ContinuousClock.now - began) in all")
        for r in replicas { try await r.close() }
    }
}
