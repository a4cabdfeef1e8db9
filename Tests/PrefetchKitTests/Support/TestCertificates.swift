import Foundation

/// A private certificate authority and a server certificate it signed for 127.0.0.1 and localhost,
/// made with the openssl tool in a folder of the test's.
struct TestCertificates {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let caFile: String
    let certificate: String
    let key: String
    /// A folder holding the CA under its hashed name, as `ca_path` wants it.
    let caFolder: String

    init(in folder: TemporaryDirectory) throws {
        let base = folder.file("pki").path
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        caFile = "\(base)/ca.pem"
        certificate = "\(base)/server.pem"
        key = "\(base)/server.key"
        caFolder = "\(base)/hashed"
        try FileManager.default.createDirectory(atPath: caFolder, withIntermediateDirectories: true)
        let extensions = "\(base)/server.ext"
        try "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n"
            .write(toFile: extensions, atomically: true, encoding: .utf8)
        try Self.openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj", "/CN=prefetchd test CA",
                          "-keyout", "\(base)/ca.key", "-out", caFile])
        try Self.openssl(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=127.0.0.1",
                          "-keyout", key, "-out", "\(base)/server.csr"])
        try Self.openssl(["x509", "-req", "-in", "\(base)/server.csr", "-CA", caFile, "-CAkey", "\(base)/ca.key",
                          "-CAcreateserial", "-days", "2", "-extfile", extensions, "-out", certificate])
        let hash = try Self.openssl(["x509", "-hash", "-noout", "-in", caFile]).trimmingCharacters(in: .whitespacesAndNewlines)
        try FileManager.default.copyItem(atPath: caFile, toPath: "\(caFolder)/\(hash).0")
    }

    @discardableResult
    private static func openssl(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "openssl \(arguments.prefix(2).joined(separator: " ")) exited \(process.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
