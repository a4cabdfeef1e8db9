import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A plain HTTP/1.0 GET over a socket, so tests read the fixture server's counters without going
/// through the fetch engine they are testing.
extension FixtureServer {
    struct GetError: Error, CustomStringConvertible {
        let description: String
    }

    /// The status and body of `GET path`.
    func get(_ path: String) throws -> (status: Int, body: Data) {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw GetError(description: "socket: \(String(cString: strerror(errno)))") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw GetError(description: "connect: \(String(cString: strerror(errno)))") }
        let request = Array("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        guard send(socket, request, request.count, 0) == request.count else {
            throw GetError(description: "send: \(String(cString: strerror(errno)))")
        }
        var response = Data()
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            guard count >= 0 else { throw GetError(description: "recv: \(String(cString: strerror(errno)))") }
            if count == 0 { break }
            response.append(contentsOf: buffer[0..<count])
        }
        guard let split = response.range(of: Data("\r\n\r\n".utf8)),
              let statusLine = String(data: response[..<split.lowerBound], encoding: .utf8)?
                  .split(separator: "\r\n").first,
              let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "")
        else {
            throw GetError(description: "GET \(path): not an HTTP response")
        }
        return (status, Data(response[split.upperBound...]))
    }

    /// The body of `GET path` as text, without surrounding white space.
    func text(_ path: String) throws -> String {
        String(decoding: try get(path).body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// How often `/count/<name>` or `/missing/<name>` was served.
    func hits(_ name: String) throws -> Int {
        let text = try text("/hits/\(name)")
        guard let value = Int(text) else { throw GetError(description: "/hits/\(name) answered '\(text)'") }
        return value
    }
}
