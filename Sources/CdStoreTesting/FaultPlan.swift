// What `FaultInjectingFileSystem` should break, and when. A plan is a list of rules; each
// operation is matched against them in order and the first match fires. Modelled on SQLite's
// I/O-error tests (a rigged file system fails the Nth operation; each loop runs twice, failing
// once, then failing every operation after the first failure) and crash tests (a child process
// stops at a chosen point inside a write, and the parent checks all-or-nothing).

import CdStore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which operation a `FaultRule` fires on. Operation numbers and occurrences count from 1.
///
/// ```swift
/// let secondWalWrite = FaultTrigger.occurrence(.write, 2, path: "store.wal")
/// ```
public enum FaultTrigger: Sendable, Equatable {
    /// The operation with this number in the global sequence (`FileOperation.sequence`).
    case operation(Int)
    /// The Nth operation of `kind`, counting only operations on `path` when one is given.
    case occurrence(FileOperationKind, Int, path: String? = nil)
    /// Every operation of `kind` (on `path` when one is given).
    case every(FileOperationKind, path: String? = nil)
}

/// What happens when a `FaultRule` fires.
///
/// ```swift
/// let diskFull = FaultAction.shortWrite(bytes: 100, errno: ENOSPC)
/// ```
public enum FaultAction: Sendable, Equatable {
    /// The operation does nothing and throws `StoreError.io` with this errno (`EIO`, `ENOSPC`…).
    case fail(errno: Int32)
    /// A write lands its first `bytes` bytes (at most all of them), then throws `errno`.
    /// Any other operation just fails with `errno`.
    case shortWrite(bytes: Int, errno: Int32)
    /// The process "dies": the operation does not happen, except that a write lands its first
    /// `landing` bytes (a torn write); it throws `SimulatedCrash`, and so does every later call.
    case crash(landing: Int)
}

/// One trigger–action pair of a `FaultPlan`.
///
/// ```swift
/// // The disk dies at the 5th operation: it and everything after it fail with EIO.
/// let rule = FaultRule(.operation(5), .fail(errno: EIO), persistent: true)
/// let fs = FaultInjectingFileSystem(plan: FaultPlan([rule]))
/// ```
public struct FaultRule: Sendable, Equatable {
    /// When the rule fires.
    public var trigger: FaultTrigger
    /// What it does.
    public var action: FaultAction
    /// Whether every operation after the first firing fails too, with the same errno, as after
    /// SQLite's "persistent" I/O errors (a disk that is gone). Ignored for crashes, which are
    /// always final.
    public var persistent: Bool

    /// Creates a rule; see `FaultPlan`'s constructors for the usual ones.
    public init(_ trigger: FaultTrigger, _ action: FaultAction, persistent: Bool = false) {
        self.trigger = trigger
        self.action = action
        self.persistent = persistent
    }
}

/// The faults a `FaultInjectingFileSystem` injects.
///
/// ```swift
/// // Fail the 3rd sync of the WAL with EIO, and every operation after it.
/// let fs = FaultInjectingFileSystem(plan: .fail(.sync, occurrence: 3, path: "store.wal", persistent: true))
/// // Later: die in the middle of operation 12, with 100 bytes of it on disk if it is a write.
/// fs.plan = .crash(atOperation: 12, landing: 100)
/// ```
public struct FaultPlan: Sendable, Equatable {
    /// The rules, tried in order; the first that matches an operation fires.
    public var rules: [FaultRule]

    /// A plan of `rules`.
    public init(_ rules: [FaultRule] = []) {
        self.rules = rules
    }

    /// No faults.
    public static let none = FaultPlan()

    /// Fail operation number `operation` with `errno`; with `persistent`, fail everything after it.
    public static func fail(operation: Int, errno: Int32 = EIO, persistent: Bool = false) -> FaultPlan {
        FaultPlan([FaultRule(.operation(operation), .fail(errno: errno), persistent: persistent)])
    }

    /// Fail the `occurrence`th operation of `kind` (on `path`, if given) with `errno`.
    public static func fail(
        _ kind: FileOperationKind, occurrence: Int, path: String? = nil,
        errno: Int32 = EIO, persistent: Bool = false
    ) -> FaultPlan {
        FaultPlan([FaultRule(.occurrence(kind, occurrence, path: path), .fail(errno: errno), persistent: persistent)])
    }

    /// Fail every operation of `kind` (on `path`, if given) with `errno`.
    public static func failEvery(_ kind: FileOperationKind, path: String? = nil, errno: Int32 = EIO) -> FaultPlan {
        FaultPlan([FaultRule(.every(kind, path: path), .fail(errno: errno))])
    }

    /// Let the `occurrence`th write (on `path`, if given) land only `bytes` bytes, then throw
    /// `errno` (a disk filling up mid-write).
    public static func shortWrite(
        occurrence: Int = 1, path: String? = nil, bytes: Int,
        errno: Int32 = ENOSPC
    ) -> FaultPlan {
        FaultPlan([FaultRule(.occurrence(.write, occurrence, path: path), .shortWrite(bytes: bytes, errno: errno))])
    }

    /// Crash at operation number `operation`; a write lands its first `landing` bytes.
    public static func crash(atOperation operation: Int, landing: Int = 0) -> FaultPlan {
        FaultPlan([FaultRule(.operation(operation), .crash(landing: landing))])
    }

    /// Crash at the `occurrence`th operation of `kind` (on `path`, if given), e.g. a named
    /// durability boundary such as "the 2nd WAL sync".
    public static func crash(
        at kind: FileOperationKind, occurrence: Int = 1, path: String? = nil,
        landing: Int = 0
    ) -> FaultPlan {
        FaultPlan([FaultRule(.occurrence(kind, occurrence, path: path), .crash(landing: landing))])
    }

    /// This plan's rules followed by `other`'s.
    public func combined(with other: FaultPlan) -> FaultPlan {
        FaultPlan(rules + other.rules)
    }
}
