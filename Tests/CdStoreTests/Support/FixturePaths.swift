import Foundation

/// The repository's `Fixtures/` folder, found from this source file's path.
func fixturesDirectory(_ file: String = #filePath) -> URL {
    var url = URL(fileURLWithPath: file)
    while url.path != "/" {
        url.deleteLastPathComponent()
        let candidate = url.appendingPathComponent("Fixtures")
        if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("stores").path) { return candidate }
    }
    return URL(fileURLWithPath: "Fixtures")
}
