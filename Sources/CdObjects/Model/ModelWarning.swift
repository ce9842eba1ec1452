// Something in a model file that the reader skipped: an element or XML attribute it does not
// know, a setting it cannot honour. Warnings never stop a load; callers may log them.

/// A non-fatal remark about a model file.
///
/// ```swift
/// let file = try ModelFileReader.load(at: "Model.xcdatamodeld")
/// for warning in file.warnings { print(warning) }  // Model.xcdatamodel/contents:12: unknown element <foo> ignored
/// ```
public struct ModelWarning: Sendable, Hashable, CustomStringConvertible {
    /// The XML element concerned (`entity`, `attribute`, …), or a file name for bundle-level remarks.
    public var element: String
    /// The file the remark is about.
    public var file: String
    /// The line in `file`, when the XML parser reported one.
    public var line: Int?
    /// What was skipped and why.
    public var message: String

    /// A warning about `element` at `file`:`line`.
    public init(element: String, file: String, line: Int?, message: String) {
        self.element = element
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String {
        let location = line.map { "\(file):\($0)" } ?? file
        return "\(location): <\(element)>: \(message)"
    }
}
