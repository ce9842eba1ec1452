// One connection to the PostgreSQL server: parsing the server URL, connecting with postgres-nio
// (its logging off), applying the shipped migrations (SS1–SS3 of ServerSchema.swift), and
// turning PostgreSQL's errors into `CdSyncError`s.

import Foundation
import Logging
import Synchronization
import PostgresNIO

/// Where the server is, from a `postgres://user:password@host:port/database` URL; a `host`
/// query item that is a directory (`?host=/tmp/pg`) names a Unix socket directory instead.
struct ServerAddress: Sendable, Hashable, CustomStringConvertible {
    let configuration: PostgresConnection.Configuration.Description
    let display: String

    var description: String { display }

    init(_ url: URL) throws {
        guard let c = URLComponents(url: url, resolvingAgainstBaseURL: false),
            c.scheme == "postgres" || c.scheme == "postgresql"
        else {
            throw CdSyncError(.invalidServerURL, "\(url.absoluteString) is not a postgres:// URL")
        }
        let user = c.user ?? "postgres"
        let database = c.path.count > 1 ? String(c.path.dropFirst()) : user
        let port = c.port ?? 5432
        if let socketDir = c.queryItems?.first(where: { $0.name == "host" })?.value, socketDir.hasPrefix("/") {
            configuration = .socket(
                path: "\(socketDir)/.s.PGSQL.\(port)", user: user, password: c.password, database: database)
            display = "postgres://\(user)@[\(socketDir)]:\(port)/\(database)"
        } else {
            let host = c.host ?? "127.0.0.1"
            configuration = .tcp(host: host, port: port, user: user, password: c.password, database: database)
            display = "postgres://\(user)@\(host):\(port)/\(database)"
        }
    }
}

extension PostgresConnection.Configuration {
    /// A Sendable, Hashable description of a configuration (the configuration itself is neither).
    enum Description: Sendable, Hashable {
        case tcp(host: String, port: Int, user: String, password: String?, database: String)
        case socket(path: String, user: String, password: String?, database: String)

        var configuration: PostgresConnection.Configuration {
            switch self {
            case let .tcp(host, port, user, password, database):
                return .init(
                    host: host, port: port, username: user, password: password, database: database, tls: .disable)
            case let .socket(path, user, password, database):
                return .init(unixSocketPath: path, username: user, password: password, database: database)
            }
        }
    }
}

/// A connection to the server, with the protocol's statements (ServerConnection+Push.swift,
/// ServerConnection+Pull.swift).
final class ServerConnection: Sendable {
    /// postgres-nio's logger: no handler, so nothing of swift-nio's is printed.
    static let logger = Logger(label: "cadmium.sync.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
    /// Connection numbers for postgres-nio's logging metadata.
    private static let counter = LockedCounter()

    let connection: PostgresConnection
    let address: ServerAddress

    private init(connection: PostgresConnection, address: ServerAddress) {
        self.connection = connection
        self.address = address
    }

    /// Connects and brings the schema up to date (SS1–SS3).
    static func open(_ address: ServerAddress) async throws -> ServerConnection {
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(
                configuration: address.configuration.configuration, id: counter.next(), logger: logger)
        } catch {
            throw CdSyncError(.serverUnreachable, "cannot connect to \(address)", cause: describe(error))
        }
        let server = ServerConnection(connection: connection, address: address)
        do {
            try await server.migrate()
        } catch {
            try? await connection.close()
            throw error
        }
        return server
    }

    func close() async { try? await connection.close() }

    /// Starts closing the connection without waiting (a deadline's timer, on a Dispatch thread:
    /// ServerDeadline.swift, SD3). Queries still waiting for an answer fail.
    /// The connection is kept until the close has completed: postgres-nio asserts that a
    /// connection it deinitializes is closed.
    func closeNow() {
        let connection = self.connection
        let closed: EventLoopFuture<Void> = connection.close()
        closed.whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    /// True once the connection is closed, by either side (the server ended its backend, or
    /// stopped). A closed connection is never reused: postgres-nio 1.33 leaves a query on one
    /// waiting for ever (ServerDeadline.swift).
    var isClosed: Bool { connection.isClosed }

    /// Runs `query`, returning its rows; PostgreSQL's errors become `CdSyncError`s naming `what`.
    @discardableResult
    func run(_ query: PostgresQuery, _ what: String) async throws -> [PostgresRow] {
        do {
            return try await connection.query(query, logger: Self.logger).collect()
        } catch {
            throw Self.wrap(error, what, address)
        }
    }

    /// Runs `body` in a transaction: COMMIT when it returns, ROLLBACK when it throws.
    func transaction<R: Sendable>(
        _ what: String, begin: PostgresQuery = "BEGIN", _ body: () async throws -> R
    ) async throws -> R {
        try await run(begin, "\(what): BEGIN")
        do {
            let result = try await body()
            try await run("COMMIT", "\(what): COMMIT")
            return result
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: Self.logger).collect()
            throw error
        }
    }

    /// Applies the migrations this build ships that the server lacks (keeps SS1, SS3).
    private func migrate() async throws {
        try await transaction("migrating the server schema") {
            try await run("SELECT pg_advisory_xact_lock(\(ServerSchema.lockKey))", "locking the migrations")
            for statement in ServerSchema.bootstrap {
                try await run(PostgresQuery(unsafeSQL: statement), "creating the cadmium_sync schema")
            }
            let applied = try await run("SELECT number FROM cadmium_sync.migrations", "reading the migrations")
                .map { try $0.decode(Int.self) }
            let known = Set(ServerSchema.migrations.map(\.number))
            if let unknown = applied.first(where: { !known.contains($0) }) {
                throw CdSyncError(
                    .serverError,
                    "\(address) has server schema migration \(unknown), which this build does not know "
                        + "(it knows 1…\(known.max() ?? 0)): a newer Cadmium migrated it")
            }
            for m in ServerSchema.migrations where !applied.contains(m.number) {
                for statement in m.statements {
                    try await run(PostgresQuery(unsafeSQL: statement), "server schema migration \(m.number)")
                }
                try await run(
                    "INSERT INTO cadmium_sync.migrations (number, name) VALUES (\(m.number), \(m.name))",
                    "recording server schema migration \(m.number)")
            }
        }
    }

    /// A PostgreSQL or connection error as a `CdSyncError`.
    static func wrap(_ error: any Error, _ what: String, _ address: ServerAddress) -> CdSyncError {
        if let e = error as? CdSyncError { return e }
        if let e = error as? PSQLError, let info = e.serverInfo {
            // The connection ended by the server (class 08, connection exception; 57P01–57P03,
            // the backend terminated or the server shutting down or starting) is the server
            // being away, not a refusal of what was sent.
            let state = info[.sqlState] ?? ""
            let away = state.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(state)
            return CdSyncError(
                away ? .serverUnreachable : .serverError, "\(what) on \(address)", cause: describe(error))
        }
        return CdSyncError(.serverUnreachable, "\(what) on \(address)", cause: describe(error))
    }

    /// PostgreSQL's message and SQL state, or the connection error's text.
    static func describe(_ error: any Error) -> String {
        if let e = error as? PSQLError {
            if let info = e.serverInfo {
                return "\(info[.sqlState] ?? "?"): \(info[.message] ?? "")"
            }
            return "\(e.code)"
        }
        return "\(error)"
    }
}

/// A thread-safe counter.
final class LockedCounter: Sendable {
    private let value = Mutex(0)
    func next() -> Int {
        value.withLock {
            $0 += 1; return $0
        }
    }
}
