// The memory and the locks that every process with a store open shares: a small file beside the
// store (`NAME-shm`), mapped into each process, and byte-range locks on it that belong to the
// handle that took them (Linux open-file-description locks), so that a lock dies with its
// process and never with another descriptor of the same file.
//
// Invariants (every implementation):
//  SR1. `base` points at `size` bytes that every handle on the same path sees: a store through
//       one handle is visible through the others, and word-sized atomic operations on them are
//       atomic across handles.
//  SR2. A lock belongs to the handle: a second handle — in this process or another — cannot take
//       a conflicting lock on the same byte; closing the handle (or the death of its process)
//       releases every lock it holds, and nothing else does.
//  SR3. Lock bytes are numbered apart from the mapped bytes: locking one never touches the data.

/// A file mapped into memory and shared by every handle on it, with per-handle byte locks (SR1–SR3).
package protocol SharedRegion: AnyObject, Sendable {
    /// The path of the shared file (for error messages).
    var path: String { get }
    /// The first of `size` shared bytes (SR1).
    var base: UnsafeMutableRawPointer { get }
    /// How many bytes are mapped.
    var size: Int { get }
    /// Takes a shared or exclusive lock on lock byte `index` (SR3). Without `wait`, returns false
    /// when another handle holds a conflicting lock; with it, waits for that lock to go. Taking a
    /// lock this handle holds converts it (atomically, like `fcntl`).
    func lock(_ index: Int, exclusive: Bool, wait: Bool) throws -> Bool
    /// Releases this handle's lock on lock byte `index`.
    func unlock(_ index: Int) throws
    /// Whether a handle other than this one holds any lock on lock byte `index`.
    func isLockedByOther(_ index: Int) throws -> Bool
    /// Unmaps the memory and releases every lock (SR2). Calls after it are not allowed.
    func close()
}

/// A file system whose stores several processes may share: it maps shared regions (SharedRegion).
package protocol SharedRegionProvider {
    /// Opens (creating when missing) the shared file at `path`, at least `size` bytes long, and
    /// maps its first `size` bytes. The file is never removed: it outlives every handle, as
    /// LMDB's lock file does, and the next store to open it alone rebuilds what it holds.
    func openSharedRegion(_ path: String, size: Int) throws -> any SharedRegion
}

/// The shared regions of `fileSystem`, if it has any. The file systems of this module are matched
/// by their concrete types first: a cast to a concrete type compares metadata, while the first
/// cast of a process to a protocol searches every conformance the process has loaded (about
/// 0.2 ms, measured in the cold open of a shared store).
package func sharedRegionProvider(of fileSystem: any StoreFileSystem) -> (any SharedRegionProvider)? {
    if let posix = fileSystem as? POSIXFileSystem { return posix }
    if let memory = fileSystem as? InMemoryFileSystem { return memory }
    return fileSystem as? SharedRegionProvider
}
