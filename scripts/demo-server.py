#!/usr/bin/env python3
"""The demo image server for jobs/catalog.yaml, on 127.0.0.1 only.

  /samples/NAME        a file of jobs/samples/, with ETag and Last-Modified (304 on a match)
  /thumbs/N.png        a small PNG drawn for the number N (a different image per N)

Prints the port it listens on as its first line of standard output (port 0 picks a free one).
"""
import hashlib
import http.server
import os
import re
import signal
import socket
import struct
import sys
import zlib
from email.utils import formatdate

SAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "jobs", "samples")
STARTED = formatdate(usegmt=True)


def png(width, height, seed):
    """A truecolor PNG with a horizontal gradient whose colours depend on seed."""
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    row = bytearray([0])
    for x in range(width):
        row += bytes(((x * 4 + seed * 7) & 255, (seed * 13) & 255, (seed * 29) & 255))
    rows = bytes(row) * height
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(bytes(rows), 6)) + chunk(b"IEND", b"")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        super().setup()
        # Headers and body go out in separate writes: without this, Nagle's algorithm and the
        # client's delayed ACK hold every response back about 40 ms.
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_GET(self):
        body, content_type = self.resolve(self.path.split("?", 1)[0])
        if body is None:
            self.send_error(404, "no such image")
            return
        etag = '"%s"' % hashlib.sha1(body).hexdigest()[:16]
        if self.headers.get("If-None-Match") == etag:
            self.send_response(304)
            self.send_header("ETag", etag)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("ETag", etag)
        self.send_header("Last-Modified", STARTED)
        self.end_headers()
        self.wfile.write(body)

    def resolve(self, path):
        match = re.fullmatch(r"/thumbs/(\d+)\.png", path)
        if match:
            number = int(match.group(1))
            return png(48, 48, number), "image/png"
        match = re.fullmatch(r"/samples/([A-Za-z0-9._-]+)", path)
        if match and not match.group(1).startswith("."):
            file = os.path.join(SAMPLES, match.group(1))
            if os.path.isfile(file):
                with open(file, "rb") as handle:
                    kind = "image/png" if file.endswith(".png") else "image/jpeg"
                    return handle.read(), kind
        return None, None

    def log_message(self, *args):
        pass


def main():
    # A test runner's thread may have blocked signals, and children inherit the mask: let SIGTERM through.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
