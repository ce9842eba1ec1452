// `cdsync`: a store's sync state, and one sync from the command line (docs/SYNC.md). A tool of
// its own, so that `cdstore` does not link postgres-nio.
//
//   cdsync status <store> [--json]
//   cdsync once <store> --server <postgres URL> --scope <name> --entity <name>…

import ArgumentParser
import CadmiumSync
import CdObjects
import CdStore
import Foundation

@main
struct CdSyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cdsync",
        abstract: "Shows and runs the PostgreSQL sync of a Cadmium store.",
        subcommands: [StatusCommand.self, OnceCommand.self]
    )
}

/// Opens the store at `path` with its recorded model.
func openStore(_ path: String, readOnly: Bool) throws -> ObjectStore {
    guard FileManager.default.fileExists(atPath: path) else { throw ValidationError("\(path): no such file") }
    var options = StoreOptions()
    options.readOnly = readOnly
    if !readOnly { options.history = .tracked }
    return try ObjectStore.openWithStoredModel(path: path, options: options).store
}

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Prints a store's sync state (replica, scope, pending changes, positions).")

    @Argument(help: "The store file.") var store: String
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let s = try openStore(store, readOnly: true)
        defer { try? s.close() }
        let status = try SyncIdentity.storedStatus(s)
        if json {
            let object: [String: Any] = [
                "replica": status.replicaID?.uuidString ?? NSNull(), "scope": status.scope ?? NSNull(),
                "pendingTransactions": status.pendingTransactions,
                "acknowledgedTransaction": status.acknowledgedTransaction.map { Int($0) } ?? NSNull(),
                "acknowledgedBatches": Int(status.acknowledgedBatches), "cursor": status.cursor ?? NSNull(),
                "historyTracked": s.isHistoryTracked,
            ]
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
            return
        }
        guard let replica = status.replicaID else {
            print("\(store): not synced yet (history \(s.isHistoryTracked ? "tracked" : "not tracked"))")
            return
        }
        print("replica:      \(replica.uuidString)")
        print("scope:        \(status.scope ?? "-")")
        print("pending:      \(status.pendingTransactions) local transactions")
        print(
            "acknowledged: transaction \(status.acknowledgedTransaction.map(String.init) ?? "-") "
                + "(\(status.acknowledgedBatches) batches)")
        print("pulled up to: server change \(status.cursor.map(String.init) ?? "-")")
    }
}

struct OnceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "once", abstract: "Pushes a store's pending changes and pulls the server's, once.")

    @Argument(help: "The store file (its history is turned on if it is off).") var store: String
    @Option(help: "The server, as postgres://user@host:port/database.") var server: String
    @Option(help: "The scope: the name the replicas of one data set share.") var scope: String
    @Option(name: .customLong("entity"), help: "A synced entity (repeat the option for several).")
    var entities: [String]

    func run() async throws {
        guard let url = URL(string: server) else { throw ValidationError("\(server) is not a URL") }
        let s = try openStore(store, readOnly: false)
        let engine = try SyncEngine(
            store: s, commitPath: .store(s), server: url, scope: scope, entities: entities)
        do {
            try await engine.syncNow()
        } catch {
            await engine.close()
            try? s.close()
            throw error
        }
        let status = try await engine.status()
        await engine.close()
        try s.close()
        print(
            "synced \(store) with \(scope): \(status.acknowledgedBatches) batches acknowledged, "
                + "pulled up to server change \(status.cursor ?? 0)")
    }
}
