// The import's writes into the new store, committed in batches: objects go in through the
// store's load (LD1 of ObjectStoreWriter+Load.swift) a batch at a time, to-many lists through
// its link load (LD2) a piece of at most one batch at a time (a long list in several pieces,
// an ordered one continuing its positions), and the open engine write transaction is committed
// whenever it holds `Options.commitSize` objects and links or `Options.commitBytes` bytes of
// values, then a new one is begun. Each commit ends the transaction's bookkeeping (its dirty
// pages, its page map), so the import's memory stays that of one commit, whatever the store's
// size and however long its longest list.
//
// The store written is the import's temporary store (CoreDataImporter, CI1): a commit makes
// nothing visible at the destination, so committing part of an import keeps its crash safety.
//
// Invariants:
//  IW1. At most one engine write transaction is open (`writer`), and it holds less than one
//       commit's worth of objects, links and value bytes plus one batch: a call writes at most
//       one batch of objects or one piece of a list (the caller keeps pieces to a batch), and
//       the commit follows the call that reaches a commit's worth. `largestCommit` records it.
//  IW2. `finish` commits what is open; `abandon` rolls it back. After either, nothing is open.

import CdObjects
import Foundation

final class CoreDataImportWriter {
    let store: ObjectStore
    private let commitSize: Int
    private let commitBytes: Int
    private var writer: ObjectStoreWriter?
    /// Objects and links, and value bytes, written into the open transaction (IW1).
    private var pendingEntries = 0
    private var pendingBytes = 0
    /// Commits made so far.
    private(set) var commits = 0
    /// The most objects and links one commit held (IW1).
    private(set) var largestCommit = 0

    init(store: ObjectStore, commitSize: Int, commitBytes: Int) {
        self.store = store
        self.commitSize = commitSize
        self.commitBytes = commitBytes
    }

    /// Inserts a batch of objects with their attributes and to-ones (`bytes`: their values' size).
    func load(_ objects: [ObjectID: [String: PropertyValue]], bytes: Int) throws {
        try open().load(ChangeSet(inserted: objects))
        try wrote(entries: objects.count, bytes: bytes)
    }

    /// Writes one owner's list of one to-many, or one piece of it: `startingAt` members were
    /// written by its earlier pieces (LD2), perhaps in earlier commits.
    func loadLinks(owner: ObjectID, relationship: String, members: [ObjectID], startingAt: Int) throws {
        try open().loadLinks(owner: owner, relationship: relationship, members: members, startingAt: startingAt)
        try wrote(entries: members.count, bytes: 0)
    }

    /// Applies a change set through the store's general path (inverses kept in step).
    func apply(_ changes: ChangeSet) throws {
        try open().apply(changes)
        try wrote(entries: changes.updated.count, bytes: 0)
    }

    /// Commits the open transaction, if any (IW2).
    func finish() throws {
        guard let writer else { return }
        self.writer = nil
        largestCommit = max(largestCommit, pendingEntries)
        pendingEntries = 0
        pendingBytes = 0
        try writer.commit()
        commits += 1
    }

    /// Rolls back the open transaction, if any (IW2).
    func abandon() {
        writer?.rollback()
        writer = nil
    }

    private func open() throws -> ObjectStoreWriter {
        if let writer { return writer }
        let w = try store.beginWriter()
        writer = w
        return w
    }

    /// Counts what the last call wrote and commits when a commit's worth is open (keeps IW1).
    private func wrote(entries: Int, bytes: Int) throws {
        pendingEntries += entries
        pendingBytes += bytes
        if pendingEntries >= commitSize || pendingBytes >= commitBytes { try finish() }
    }

    /// The bytes a value takes, roughly, for `commitBytes`.
    static func size(of value: CdValue) -> Int {
        switch value {
        case let .string(s): return s.utf8.count
        case let .data(d): return d.count
        case let .uri(u): return u.absoluteString.utf8.count
        default: return 8
        }
    }
}
