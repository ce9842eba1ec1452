// The storage behind `InMemoryFileSystem` and `FaultInjectingFileSystem`: a flat namespace of
// paths naming nodes (inodes), each node's bytes, the open handles and their flock-style locks.
//
// A plain value type with no locking of its own: its owner keeps it inside a `LockedState` and calls it
// only while holding that lock. Errors use the POSIX call names of `POSIXFile`, so tests expect
// the same `StoreError.io` from every implementation (FS5).
//
// Invariants:
//  MV1. Every path in `entries` names a node in `nodes`.
//  MV2. A node lives while a path names it or a handle has it open (`openHandles > 0`); then it is
//       deleted, like an unlinked inode whose last descriptor is closed.
//  MV3. A handle's `lock` conflicts with no other handle's lock on the same node: at most one
//       handle holds `.exclusive`, and then no other handle holds anything (FS4).
//  MV4. No node holds more than `maximumFileSize` bytes; larger offsets fail with EFBIG.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

package struct InMemoryVolume {
    package typealias NodeID = Int
    package typealias HandleID = Int

    /// The largest file the in-memory stores accept (MV4): big enough for any test, small enough
    /// that a wild offset fails instead of allocating terabytes.
    package static let maximumFileSize: UInt64 = 1 << 32

    package struct Node {
        package var data: [UInt8] = []
        package var openHandles = 0
    }

    package struct Handle {
        package let node: NodeID
        package let path: String
        package let writable: Bool
        package var lock: FileLockKind?
    }

    package private(set) var entries: [String: NodeID] = [:]
    package private(set) var nodes: [NodeID: Node] = [:]
    private var handles: [HandleID: Handle] = [:]
    private var nextNode: NodeID = 1
    private var nextHandle: HandleID = 1

    package init(files: [String: [UInt8]] = [:]) {
        for (path, data) in files {
            let node = newNode()
            nodes[node]?.data = data
            entries[path] = node
        }
    }

    // MARK: - Namespace

    /// Opens `path` and returns the new handle, its node and whether the file was created.
    package mutating func open(
        _ path: String, mode: FileOpenMode
    ) throws -> (handle: HandleID, node: NodeID, created: Bool) {
        var created = false
        let node: NodeID
        if let existing = entries[path] {
            node = existing
        } else {
            guard mode == .createIfMissing else {
                throw StoreError.io(operation: "open", path: path, errno: ENOENT)
            }
            node = newNode()
            entries[path] = node
            created = true
        }
        nodes[node]!.openHandles += 1
        let handle = nextHandle
        nextHandle += 1
        handles[handle] = Handle(node: node, path: path, writable: mode != .readOnly, lock: nil)
        return (handle, node, created)
    }

    package func exists(_ path: String) -> Bool { entries[path] != nil }

    /// ENOENT, for the file systems built on a volume.
    package static let noSuchFile = ENOENT

    /// Unlinks `path`; open handles keep the node (MV2). Returns the node that was unlinked.
    @discardableResult
    package mutating func remove(_ path: String) -> NodeID? {
        guard let node = entries.removeValue(forKey: path) else { return nil }
        releaseIfUnused(node)
        return node
    }

    /// Gives `path`'s node the name `newPath`, unlinking what had that name (MV2 for its open
    /// handles). False when `path` does not exist.
    package mutating func rename(_ path: String, to newPath: String) -> Bool {
        guard let node = entries.removeValue(forKey: path) else { return false }
        let replaced = entries.updateValue(node, forKey: newPath)
        if let replaced, replaced != node { releaseIfUnused(replaced) }
        return true
    }

    /// The bytes of the file at `path`, or nil when there is none.
    package func contents(of path: String) -> [UInt8]? {
        entries[path].flatMap { nodes[$0]?.data }
    }

    package func contents(ofNode node: NodeID) -> [UInt8] { nodes[node]?.data ?? [] }

    package func node(ofHandle handle: HandleID) -> NodeID? { handles[handle]?.node }

    // MARK: - Handles

    package func read(
        _ handle: HandleID, path: String, into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64
    ) throws -> Int {
        let node = try openHandle(handle, path, "pread").node
        let data = nodes[node]!.data
        guard offset < UInt64(data.count), buffer.count > 0 else { return 0 }
        let start = Int(offset)
        let count = min(buffer.count, data.count - start)
        data.withUnsafeBytes { source in
            buffer.baseAddress!.copyMemory(from: source.baseAddress! + start, byteCount: count)
        }
        return count
    }

    package mutating func write(
        _ handle: HandleID, path: String, _ bytes: UnsafeRawBufferPointer, at offset: UInt64
    ) throws {
        let open = try openHandle(handle, path, "pwrite")
        guard open.writable else { throw StoreError.io(operation: "pwrite", path: open.path, errno: EBADF) }
        guard bytes.count > 0 else { return }
        let end = try checkedEnd(offset, bytes.count, open.path, "pwrite")
        let start = Int(offset)
        if nodes[open.node]!.data.count < end {
            // A gap between the old end and `offset` reads as zeros (FS2).
            nodes[open.node]!.data.append(contentsOf: repeatElement(0, count: end - nodes[open.node]!.data.count))
        }
        nodes[open.node]!.data.withUnsafeMutableBytes { target in
            (target.baseAddress! + start).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        }
    }

    package func size(_ handle: HandleID, path: String) throws -> UInt64 {
        UInt64(nodes[try openHandle(handle, path, "fstat").node]!.data.count)
    }

    package mutating func truncate(_ handle: HandleID, path: String, to size: UInt64) throws {
        let open = try openHandle(handle, path, "ftruncate")
        // ftruncate on a descriptor not open for writing fails with EINVAL on Linux.
        guard open.writable else { throw StoreError.io(operation: "ftruncate", path: open.path, errno: EINVAL) }
        let end = try checkedEnd(size, 0, open.path, "ftruncate")
        let count = nodes[open.node]!.data.count
        if end < count {
            nodes[open.node]!.data.removeLast(count - end)
        } else if end > count {
            nodes[open.node]!.data.append(contentsOf: repeatElement(0, count: end - count))
        }
    }

    /// Takes `kind` for `handle` or throws `StoreError.locked` (FS4, keeps MV3). Like Linux `flock`,
    /// converting a held lock first drops it, so a failed conversion leaves no lock.
    package mutating func lock(_ handle: HandleID, path: String, _ kind: FileLockKind) throws {
        let open = try openHandle(handle, path, "flock")
        if open.lock == kind { return }
        handles[handle]!.lock = nil
        let conflict = handles.values.contains { other in
            guard other.node == open.node, let held = other.lock else { return false }
            return held == .exclusive || kind == .exclusive
        }
        guard !conflict else { throw StoreError.locked(path: open.path) }
        handles[handle]!.lock = kind
    }

    /// Releases the handle and its lock; the node goes when nothing refers to it any more (MV2).
    package mutating func close(_ handle: HandleID, path: String) throws {
        let open = try openHandle(handle, path, "close")
        handles[handle] = nil
        nodes[open.node]!.openHandles -= 1
        releaseIfUnused(open.node)
    }

    /// Throws EBADF named `operation` when the handle is closed (a sync has nothing else to check).
    package func checkOpen(_ handle: HandleID, path: String, _ operation: String) throws {
        _ = try openHandle(handle, path, operation)
    }

    // MARK: - Helpers

    /// The handle's state, or EBADF once it is closed (closed handles leave the table, so the
    /// caller passes the path it opened for the error message).
    private func openHandle(_ handle: HandleID, _ path: String, _ operation: String) throws -> Handle {
        guard let open = handles[handle] else {
            throw StoreError.io(operation: operation, path: path, errno: EBADF)
        }
        return open
    }

    private func checkedEnd(_ offset: UInt64, _ count: Int, _ path: String, _ operation: String) throws -> Int {
        let (end, overflow) = offset.addingReportingOverflow(UInt64(count))
        guard !overflow, end <= Self.maximumFileSize else {
            throw StoreError.io(operation: operation, path: path, errno: EFBIG)
        }
        return Int(end)
    }

    private mutating func newNode() -> NodeID {
        let node = nextNode
        nextNode += 1
        nodes[node] = Node()
        return node
    }

    private mutating func releaseIfUnused(_ node: NodeID) {
        guard let state = nodes[node], state.openHandles == 0, !entries.values.contains(node) else { return }
        nodes[node] = nil
    }
}
