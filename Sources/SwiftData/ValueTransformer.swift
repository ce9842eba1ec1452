// Foundation's `ValueTransformer`, which Foundation on Linux lacks, so that a model file that
// declares `@Attribute(.transformable(by: SomeTransformer.self))` and the transformer class
// compiles here as it does on Apple's systems. A transformable attribute is stored as the bytes the
// transformer makes (TransformableCoding.swift); a transformer is found by its class (made with
// `init()`) or by the name it was registered under.
//
// Invariant:
//  VT1. A name maps to at most one transformer; registering under a name again replaces it, and
//       registering nil removes it. Reads and writes of the names go through one lock, so any
//       thread may register or look up.

import Foundation

#if !canImport(Darwin)

/// The name a value transformer is registered under.
public struct NSValueTransformerName: Hashable, RawRepresentable, Sendable {
    public var rawValue: String

    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(rawValue: String) { self.rawValue = rawValue }
}

/// Turns values of one representation into another, and back when it allows it: Foundation's
/// class, for `@Attribute(.transformable(by:))`. Subclass it and override
/// `transformedValue(_:)` (the model's value to `Data`) and `reverseTransformedValue(_:)`.
///
/// ```swift
/// final class PointTransformer: ValueTransformer {
///     override func transformedValue(_ value: Any?) -> Any? {
///         (value as? Point).map { Data("\($0.x),\($0.y)".utf8) }
///     }
///     override func reverseTransformedValue(_ value: Any?) -> Any? {
///         guard let data = value as? Data else { return nil }
///         let parts = String(decoding: data, as: UTF8.self).split(separator: ",").compactMap { Int($0) }
///         return parts.count == 2 ? Point(x: parts[0], y: parts[1]) : nil
///     }
/// }
/// ```
open class ValueTransformer: NSObject {
    /// A transformer; `.transformable(by:)` makes its transformer with this initializer.
    public required override init() { super.init() }

    /// Registers `transformer` under `name` (nil removes the name's transformer).
    open class func setValueTransformer(_ transformer: ValueTransformer?, forName name: NSValueTransformerName) {
        TransformerNames.shared.set(transformer, for: name)
    }

    /// The names transformers are registered under.
    open class func valueTransformerNames() -> [NSValueTransformerName] { TransformerNames.shared.names() }

    /// The class of the values `transformedValue(_:)` gives.
    open class func transformedValueClass() -> AnyClass { NSObject.self }

    /// Whether `reverseTransformedValue(_:)` turns values back; true unless overridden.
    open class func allowsReverseTransformation() -> Bool { true }

    /// `value` transformed; by default `value` itself.
    open func transformedValue(_ value: Any?) -> Any? { value }

    /// `value` transformed back; by default `transformedValue(_:)` of it, for a transformer
    /// that allows reverse transformation. Calling it on one that does not is a program error,
    /// as on Apple's systems.
    open func reverseTransformedValue(_ value: Any?) -> Any? {
        precondition(
            Swift.type(of: self).allowsReverseTransformation(),
            "\(Swift.type(of: self)) does not allow reverse transformation")
        return transformedValue(value)
    }

    /// The transformer registered under `name`, if any.
    static func registered(_ name: NSValueTransformerName) -> ValueTransformer? {
        TransformerNames.shared.transformer(name)
    }

    /// A new transformer of class `type`.
    static func make(_ type: ValueTransformer.Type) -> ValueTransformer? { type.init() }
}

/// The registered transformers by name (VT1).
private final class TransformerNames: @unchecked Sendable {
    static let shared = TransformerNames()
    private let lock = NSLock()
    private var byName: [NSValueTransformerName: ValueTransformer] = [:]

    func set(_ transformer: ValueTransformer?, for name: NSValueTransformerName) {
        lock.withLock { byName[name] = transformer }  // keeps VT1
    }

    func transformer(_ name: NSValueTransformerName) -> ValueTransformer? { lock.withLock { byName[name] } }

    func names() -> [NSValueTransformerName] { lock.withLock { Array(byName.keys) } }
}

#else

extension ValueTransformer {
    /// The transformer registered under `name`, if any.
    static func registered(_ name: NSValueTransformerName) -> ValueTransformer? {
        ValueTransformer(forName: name)
    }

    /// A new transformer of class `type`.
    static func make(_ type: ValueTransformer.Type) -> ValueTransformer? {
        (type as NSObject.Type).init() as? ValueTransformer
    }
}

#endif
