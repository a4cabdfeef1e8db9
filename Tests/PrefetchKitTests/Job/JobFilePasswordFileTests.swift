import Foundation
import Testing
@testable import PrefetchKit

/// `password_file` beside `password_env`, for `credentials:` and a `proxy:` mapping: a Kubernetes
/// Secret or a systemd credential mounted as a file, read as the job loads.
@Suite struct JobFilePasswordFileTests {
    /// Relative to the job file's folder, absolute, or from systemd's `$CREDENTIALS_DIRECTORY`.
    @Test func thePasswordIsTheFilesContentLessOneTrailingNewline() throws {
        let folder = try TemporaryDirectory()
        try folder.write("secrets/proxy", "pro xy\n")
        try folder.write("secrets/shop", "line one\nline two\r\n")
        let absolute = try folder.write("abs/shop", "no newline").path
        let job = try folder.load("""
            version: 1
            defaults:
              proxy: { url: "http://127.0.0.1:3128", username: warm, password_file: secrets/proxy }
              credentials: { username: shop, password_file: secrets/shop }
            sets:
              - { name: a, urls: ["https://x.example/1.png"] }
              - { name: b, credentials: { username: shop, password_file: "${CREDENTIALS_DIRECTORY}/shop" }, urls: ["https://x.example/2.png"] }
            """, environment: ["CREDENTIALS_DIRECTORY": folder.path + "/abs"])
        let options = job.sets[0].options
        #expect(options.proxy?.credentials == CredentialSettings(
            username: "warm", passwordSource: .file("\(folder.path)/secrets/proxy"), password: "pro xy"))
        #expect(options.credentials?.password == "line one\nline two")
        #expect(job.sets[1].options.credentials == CredentialSettings(username: "shop", passwordSource: .file(absolute), password: "no newline"))
        #expect(!"\(options.proxy!)".contains("pro xy"))
        #expect("\(options.proxy!)".contains("password from file \(folder.path)/secrets/proxy"))
    }

    @Test func anUnreadableOrEmptyFileAndBothSourcesAreErrorsNamingTheKey() throws {
        let folder = try TemporaryDirectory()
        try folder.write("empty", "\n")
        try folder.write("folder/.keep", "")
        let diagnostics = try folder.diagnostics("""
            version: 1
            sets:
              - name: a
                credentials: { username: u, password_file: missing.txt }
                urls: ["https://x.example/1.png"]
              - name: b
                credentials: { username: u, password_file: empty }
                proxy: { url: "http://127.0.0.1:3128", username: u, password_env: PW, password_file: empty }
                urls: ["https://x.example/1.png"]
              - name: c
                credentials: { username: u, password_file: folder }
                urls: ["https://x.example/1.png"]
            """, environment: ["PW": "p"])
        expectDiagnostic(diagnostics, line: 4, column: 48, keyPath: "sets[0].credentials.password_file",
                         contains: "cannot read the password file `\(folder.path)/missing.txt`: No such file or directory")
        expectDiagnostic(diagnostics, line: 7, column: 48, keyPath: "sets[1].credentials.password_file",
                         contains: "the password file `\(folder.path)/empty` is empty")
        expectDiagnostic(diagnostics, line: 8, column: 12, keyPath: "sets[1].proxy", contains: "one of `password_env`")
        expectDiagnostic(diagnostics, line: 11, column: 48, keyPath: "sets[2].credentials.password_file",
                         contains: "`\(folder.path)/folder`: not a readable regular file")
    }
}
