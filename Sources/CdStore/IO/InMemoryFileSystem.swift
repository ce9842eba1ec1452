// A `StoreFileSystem` held in memory, for fast tests and throwaway stores. All state lives in one
// `InMemoryVolume` behind one `LockedState` (a pthread mutex); every call takes the lock for its
// whole duration, so each operation is atomic with respect to every other (which also makes FS3
// trivially true: nothing is ever lost, there is no power to lose — use `FaultInjectingFileSystem`
// for that).

/// A file system whose files are byte arrays in memory.
///
/// Paths are plain keys: there are no directories, and `"a/b"` and `"./a/b"` are different files.
/// Locks follow FS4 per handle, like `flock`: two handles on one path conflict even in one thread.
/// Safe to use from any number of threads; each call is atomic.
///
/// ```swift
/// let fs = InMemoryFileSystem()
/// let file = try fs.open("store.cd", mode: .createIfMissing)
/// try file.write([0xCD, 0x01], at: 4096)          // bytes 0..<4096 read as zeros
/// #expect(try file.size() == 4098)
/// #expect(fs.contents(of: "store.cd")?.count == 4098)
/// ```
public final class InMemoryFileSystem: StoreFileSystem {
    let volume: LockedState<InMemoryVolume>
    /// The shared regions of stores opened here (InMemorySharedRegion.swift).
    let sharedBlocks = LockedState(InMemorySharedBlocks())

    /// Creates an empty file system.
    public init() {
        volume = LockedState(InMemoryVolume())
    }

    /// Creates a file system holding `files` (path → contents), e.g. a state that survived a
    /// simulated power loss, or a golden fixture.
    public init(files: [String: [UInt8]]) {
        volume = LockedState(InMemoryVolume(files: files))
    }

    // MARK: - StoreFileSystem

    /// Opens `path`; `.readOnly` and `.readWrite` fail with `ENOENT` when it does not exist.
    public func open(_ path: String, mode: FileOpenMode) throws -> any StoreFile {
        let handle = try volume.withLock { try $0.open(path, mode: mode).handle }
        return InMemoryFile(fileSystem: self, handle: handle, path: path)
    }

    public func fileExists(_ path: String) -> Bool {
        volume.withLock { $0.exists(path) }
    }

    /// Removes the name; handles already open keep reading and writing the unlinked file.
    public func remove(_ path: String) throws {
        volume.withLock { _ = $0.remove(path) }
    }

    /// Renames atomically (under the volume's lock); open handles keep their file.
    public func rename(_ path: String, to newPath: String) throws {
        try volume.withLock { volume in
            guard volume.rename(path, to: newPath) else {
                throw StoreError.io(operation: "rename", path: path, errno: InMemoryVolume.noSuchFile)
            }
        }
    }

    /// Nothing to do: directory entries in memory are as durable as anything else here.
    public func syncDirectory(containing path: String) throws {}

    // MARK: - Inspection

    /// The current bytes of the file at `path`, or nil when there is none.
    public func contents(of path: String) -> [UInt8]? {
        volume.withLock { $0.contents(of: path) }
    }

    /// Every path, sorted.
    public var paths: [String] {
        volume.withLock { $0.entries.keys.sorted() }
    }
}

/// A file opened by `InMemoryFileSystem`. Thread-safe: every call is atomic on the file system.
///
/// ```swift
/// let file = try InMemoryFileSystem().open("wal", mode: .createIfMissing)
/// try file.write([1, 2, 3], at: 0)
/// try file.truncate(to: 1)
/// ```
public final class InMemoryFile: StoreFile {
    /// The path the file was opened at.
    public let path: String
    private let fileSystem: InMemoryFileSystem
    private let handle: InMemoryVolume.HandleID

    init(fileSystem: InMemoryFileSystem, handle: InMemoryVolume.HandleID, path: String) {
        self.fileSystem = fileSystem
        self.handle = handle
        self.path = path
    }

    deinit {
        // Like a descriptor freed by the process exiting: a dropped handle releases its lock.
        let (handle, path) = (handle, path)
        fileSystem.volume.withLock { try? $0.close(handle, path: path) }
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws -> Int {
        try fileSystem.volume.withLock { try $0.read(handle, path: path, into: buffer, at: offset) }
    }

    public func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws {
        try fileSystem.volume.withLock { try $0.write(handle, path: path, bytes, at: offset) }
    }

    /// Checks that the handle is open; there is nothing to flush.
    public func sync() throws {
        try fileSystem.volume.withLock { try $0.checkOpen(handle, path: path, "fdatasync") }
    }

    public func size() throws -> UInt64 {
        try fileSystem.volume.withLock { try $0.size(handle, path: path) }
    }

    public func truncate(to size: UInt64) throws {
        try fileSystem.volume.withLock { try $0.truncate(handle, path: path, to: size) }
    }

    public func lock(_ kind: FileLockKind) throws {
        try fileSystem.volume.withLock { try $0.lock(handle, path: path, kind) }
    }

    public func close() throws {
        try fileSystem.volume.withLock { try $0.close(handle, path: path) }
    }
}
