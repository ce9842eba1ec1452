// The locks that keep managed objects' memory safe. A context is single-threaded by contract and
// its checks report any other use (I, J, K), but a misuse handler may let the wrong-thread call
// go on; the object's state must then still not be torn. Instead of a lock per object (an
// allocation and a mutex for every object made), objects share a fixed table of locks, picked
// by the object's address: no allocation per object, and an uncontended lock per access, as
// before.
//
// Invariants:
//  OL1. A body run under an object's lock takes no other object's lock and no context lock
//       (two objects may share a stripe, and the locks are not recursive). It may read
//       `Cd.container` (to resolve an object's slots): that lock is a leaf, taken around no other.

import CdStore

/// A fixed table of locks shared by all managed objects (see OL1).
enum ObjectLocks {
    private static let count = 64
    private static let stripes: [Lock] = (0..<count).map { _ in Lock() }

    /// The lock of `object`: the same one for the object's whole life.
    @inline(__always)
    static func lock(for object: AnyObject) -> Lock {
        // Objects are at least 16-byte aligned: skip the low bits that are always zero.
        let address = UInt(bitPattern: ObjectIdentifier(object))
        return stripes[Int((address >> 4) % UInt(count))]
    }
}
