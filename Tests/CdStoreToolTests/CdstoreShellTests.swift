// The shell completion scripts and the manual's source that swift-argument-parser makes from
// `cdstore`'s definition (`make completions`, `make man`): every subcommand is in them.

import Foundation
import Testing

@Suite struct CdstoreShellTests {
    static let subcommands = [
        "info", "query", "export", "import", "compact", "verify", "migrate", "import-coredata", "history",
    ]

    @Test(arguments: ["bash", "zsh", "fish"]) func completionScriptsNameEverySubcommand(_ shell: String) throws {
        let r = try Cdstore.run(["--generate-completion-script", shell])
        #expect(r.status == 0, "\(r.stderr)")
        for name in Self.subcommands { #expect(r.stdout.contains(name), "\(shell) completion lacks \(name)") }
        #expect(r.stdout.contains("expand"))  // fish writes long options as `-l expand`
    }

    /// The description `make man` turns into cdstore.1: every subcommand, with its abstract.
    @Test func theManualSourceDescribesEverySubcommand() throws {
        let r = try Cdstore.run(["--experimental-dump-help"])
        #expect(r.status == 0, "\(r.stderr)")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let command = try #require(root["command"] as? [String: Any])
        let subcommands = try #require(command["subcommands"] as? [[String: Any]])
        let names = subcommands.compactMap { $0["commandName"] as? String }
        for name in Self.subcommands { #expect(names.contains(name)) }
        #expect(subcommands.allSatisfy { !(($0["abstract"] as? String) ?? "").isEmpty })
    }
}
