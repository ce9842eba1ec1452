// Key path → property names: `\Employee.department?.name` → ["department", "name"], the form the
// store's predicates, sorts and property lists use. A root type answers for its own key paths by
// conforming to `CdKeyPathRoot` (managed objects do, by evaluating the key path on a probe
// object: ManagedObjectKeyPathProbe.swift); any other root falls back to the key path's
// description, which names stored properties of structs and classes on this toolchain
// (`\Point.x`) but not computed ones (`\Employee.<computed 0x… (Int64)>`), which are refused.
//
// Invariants:
//  TQ1. A resolved path is non-empty and every name in it is non-empty (CdPredicate's CP1).
//  TQ2. A key path is resolved at most once per process: the answer (names or error) is
//       cached by key path, so building the same typed query again costs a dictionary lookup.

import Foundation
import CdStore

/// A root type that names the stored properties its key paths lead through.
///
/// Managed objects conform already. A root kind with its own property storage conforms so that
/// the typed query forms (`\.name == "Ann"`, `sorted(by: \.name)`) work on it.
public protocol CdKeyPathRoot {
    /// The property names `keyPath` (rooted at `Self`) leads through, in order; nil when it
    /// passes through anything that is not a stored property.
    static func cdPropertyNames(of keyPath: AnyKeyPath) -> [String]?
}

/// Resolves key paths to property names (keeps TQ1, TQ2).
enum CdKeyPathNames {
    private static let cache = LockedState<[AnyKeyPath: Result<[String], CdQueryError>]>([:])

    /// The names of `keyPath`, or the typed error that names it.
    static func resolve(_ keyPath: AnyKeyPath) -> Result<[String], CdQueryError> {
        if let known = cache.withLock({ $0[keyPath] }) { return known }
        let root = type(of: keyPath).rootType
        let names: [String]?
        if let custom = root as? any CdKeyPathRoot.Type {
            names = custom.cdPropertyNames(of: keyPath)
        } else {
            names = describedNames(keyPath)
        }
        let result: Result<[String], CdQueryError>
        if let names, !names.isEmpty, names.allSatisfy({ !$0.isEmpty }) {  // keeps TQ1
            result = .success(names)
        } else {
            result = .failure(
                CdQueryError(
                    .unresolvedKeyPath, part: String(describing: keyPath),
                    message: "the key path \(keyPath) of \(root) does not lead through stored properties only; "
                        + "use @Attribute / @Relationship properties (or stored properties of a value type)"))
        }
        cache.withLock { $0[keyPath] = result }  // keeps TQ2
        return result
    }

    /// The names in `keyPath`'s description (`\Root.a?.b` → ["a", "b"]), or nil when a
    /// component is not a stored property (`<computed …>`) or the description has another shape.
    static func describedNames(_ keyPath: AnyKeyPath) -> [String]? {
        let components = describedComponents(keyPath)
        guard let components, components.allSatisfy({ !$0.hasPrefix("<") && !$0.isEmpty }) else { return nil }
        return components.map { $0.hasSuffix("?") || $0.hasSuffix("!") ? String($0.dropLast()) : $0 }
    }

    /// The components of `keyPath`'s description after its root type, split at the dots that are
    /// not inside `<…>` or `(…)`; nil when the description does not start with `\Root.`.
    static func describedComponents(_ keyPath: AnyKeyPath) -> [String]? {
        let text = String(describing: keyPath)
        let prefix = "\\" + String(describing: type(of: keyPath).rootType) + "."
        guard text.hasPrefix(prefix) else { return nil }
        var components: [String] = []
        var current = ""
        var depth = 0
        for character in text.dropFirst(prefix.count) {
            switch character {
            case "<", "(": depth += 1
            case ">", ")": depth -= 1
            case "." where depth == 0:
                components.append(current)
                current = ""
                continue
            default: break
            }
            current.append(character)
        }
        components.append(current)
        return components
    }
}
