#!/usr/bin/env python3
"""Small proxies on 127.0.0.1 for the fetch engine's proxy tests. Python 3 standard library only.

  proxies.py http LOG [--auth USER:PASSWORD] [--tls CERT KEY]
      An HTTP proxy: forwards `GET http://...` requests and tunnels CONNECT (so https targets work);
      with --tls it is an https proxy (TLS between client and proxy).
  proxies.py socks5 LOG [--auth USER:PASSWORD]
      A SOCKS5 proxy (RFC 1928; with --auth, username and password by RFC 1929), CONNECT only.

  --upstream HOST:PORT sends every request and tunnel there instead of to its target, so a test can
  ask for an address that is not reachable (a public one) and still be answered by a local server.

Binds port 0 and prints the chosen port as the first line of stdout. Every request it is asked to
carry is appended to LOG as one line, as it arrives: `GET http://host:port/path`, `CONNECT host:port`
or `SOCKS5 host:port`; one refused for its credentials is `DENIED ...`. Exits when its parent does
(misbehaving_server.serve).
"""

import base64
import select
import socket
import socketserver
import ssl
import struct
import sys
import threading
import urllib.parse

from misbehaving_server import serve

log_lock = threading.Lock()
LOG = None
AUTH = None
UPSTREAM = None


def connect(host, port):
    if UPSTREAM is not None:
        host, port = UPSTREAM
    return socket.create_connection((host, port))


def record(line):
    with log_lock:
        with open(LOG, "a") as file:
            file.write(line + "\n")


def relay(one, other):
    """Copies bytes both ways until either side closes."""
    sockets = [one, other]
    while True:
        # A TLS socket may hold decrypted bytes that select cannot see.
        readable = [s for s in sockets if isinstance(s, ssl.SSLSocket) and s.pending()]
        if not readable:
            readable, _, _ = select.select(sockets, [], [], 30)
        if not readable:
            return
        for source in readable:
            target = other if source is one else one
            try:
                data = source.recv(65536)
            except OSError:
                return
            if not data:
                return
            target.sendall(data)


def read_head(connection):
    """The request line and headers, up to the blank line, and what came after it."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = connection.recv(65536)
        if not chunk:
            return None, b""
        data += chunk
    head, rest = data.split(b"\r\n\r\n", 1)
    return head.decode("latin-1").split("\r\n"), rest


class HTTPProxy(socketserver.BaseRequestHandler):
    def handle(self):
        connection = self.request
        while True:
            lines, rest = read_head(connection)
            if not lines:
                return
            method, target, _ = lines[0].split(" ", 2)
            headers = lines[1:]
            if AUTH is not None:
                expected = "basic " + base64.b64encode(AUTH.encode()).decode().lower()
                given = [h.split(":", 1)[1].strip().lower() for h in headers if h.lower().startswith("proxy-authorization:")]
                if given != [expected]:
                    record("DENIED %s %s" % (method, target))
                    connection.sendall(b"HTTP/1.1 407 Proxy Authentication Required\r\n"
                                       b"Proxy-Authenticate: Basic realm=\"proxy\"\r\nContent-Length: 0\r\n\r\n")
                    continue
            record("%s %s" % (method, target))
            if method == "CONNECT":
                host, port = target.rsplit(":", 1)
                upstream = connect(host.strip("[]"), int(port))
                connection.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                if rest:
                    upstream.sendall(rest)
                relay(connection, upstream)
                upstream.close()
                return
            self.forward(method, target, headers, rest)
            return

    def forward(self, method, target, headers, rest):
        """Sends the request on with a path-only target and Connection: close, and relays the answer."""
        parts = urllib.parse.urlsplit(target)
        upstream = connect(parts.hostname, parts.port or 80)
        path = parts.path or "/"
        if parts.query:
            path += "?" + parts.query
        kept = [h for h in headers if not h.lower().startswith(("proxy-", "connection:"))]
        head = "%s %s HTTP/1.1\r\n%s\r\nConnection: close\r\n\r\n" % (method, path, "\r\n".join(kept))
        upstream.sendall(head.encode("latin-1") + rest)
        while True:
            data = upstream.recv(65536)
            if not data:
                break
            self.request.sendall(data)
        upstream.close()


class SOCKS5Proxy(socketserver.BaseRequestHandler):
    def handle(self):
        connection = self.request
        version, count = struct.unpack("BB", self.exactly(2))
        methods = self.exactly(count)
        if version != 5:
            return
        wanted = 2 if AUTH is not None else 0
        if wanted not in methods:
            record("DENIED SOCKS5 without username and password")
            connection.sendall(b"\x05\xff")
            return
        connection.sendall(bytes([5, wanted]))
        if AUTH is not None:
            _, length = struct.unpack("BB", self.exactly(2))
            user = self.exactly(length).decode()
            length = self.exactly(1)[0]
            password = self.exactly(length).decode()
            if user + ":" + password != AUTH:
                record("DENIED SOCKS5")
                connection.sendall(b"\x01\x01")
                return
            connection.sendall(b"\x01\x00")
        _, command, _, kind = struct.unpack("BBBB", self.exactly(4))
        if kind == 1:
            host = socket.inet_ntop(socket.AF_INET, self.exactly(4))
        elif kind == 4:
            host = socket.inet_ntop(socket.AF_INET6, self.exactly(16))
        else:
            host = self.exactly(self.exactly(1)[0]).decode()
        port = struct.unpack(">H", self.exactly(2))[0]
        record("SOCKS5 %s:%d" % (host, port))
        if command != 1:
            connection.sendall(b"\x05\x07\x00\x01\x00\x00\x00\x00\x00\x00")
            return
        try:
            upstream = connect(host, port)
        except OSError:
            connection.sendall(b"\x05\x05\x00\x01\x00\x00\x00\x00\x00\x00")
            return
        connection.sendall(b"\x05\x00\x00\x01\x00\x00\x00\x00\x00\x00")
        relay(connection, upstream)
        upstream.close()

    def exactly(self, count):
        data = b""
        while len(data) < count:
            chunk = self.request.recv(count - len(data))
            if not chunk:
                raise ConnectionError("closed in the handshake")
            data += chunk
        return data


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, handler, context):
        super().__init__(("127.0.0.1", 0), handler)
        self.context = context

    def get_request(self):
        connection, address = super().get_request()
        if self.context is not None:
            connection.settimeout(10)
            connection = self.context.wrap_socket(connection, server_side=True)
            connection.settimeout(None)
        return connection, address

    def handle_error(self, request, client_address):
        pass


def main():
    global LOG, AUTH, UPSTREAM
    kind, LOG = sys.argv[1], sys.argv[2]
    arguments = sys.argv[3:]
    context = None
    while arguments:
        if arguments[0] == "--auth":
            AUTH, arguments = arguments[1], arguments[2:]
        elif arguments[0] == "--upstream":
            host, port = arguments[1].rsplit(":", 1)
            UPSTREAM, arguments = (host, int(port)), arguments[2:]
        elif arguments[0] == "--tls":
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(arguments[1], arguments[2])
            arguments = arguments[3:]
        else:
            sys.exit("unknown argument " + arguments[0])
    open(LOG, "a").close()
    serve(Server(HTTPProxy if kind == "http" else SOCKS5Proxy, context))


if __name__ == "__main__":
    main()
