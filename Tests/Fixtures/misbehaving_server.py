#!/usr/bin/env python3
"""An HTTP server on 127.0.0.1 that misbehaves on purpose, for the fetch engine's tests.

Binds port 0 and prints the chosen port as the first line of stdout. Python 3 standard library only.

Routes:
  /ok/<name>                    200, a small valid PNG
  /bytes/<count>/<seed>         200, <count> bytes: byte i is (i ^ i >> 8 ^ i >> 16 ^ seed) & 0xff
  /status/<code>                that status, a short text body (none for 204 and 304)
  /retry-after/<code>/<seconds> that status with Retry-After: <seconds>
  /flaky/<id>/<n>               500 for the first n hits of <id>, then 200 with a PNG
  /reset                        headers and part of the body, then a TCP reset
  /short                        Content-Length larger than the body, then close
  /hang                         accepts and never answers
  /garbled/<kind>               a response written by hand, wrong as <kind> says: status (a status line
                                "HTTP/1.1 abc Weird"), http09 (a body with no status line), colon (a
                                header line without a colon), chunk (a chunk size "zz"), empty-coding (a
                                PNG with an empty Content-Encoding: header, which names no coding)
  /endless                      a chunked body that never ends
  /huge                         Content-Length: 10000000000, then slow bytes
  /redirect-loop                302 to itself
  /redirect-file                302 to file:///etc/passwd
  /redirect/<name>              302 to /ok/<name>
  /html-as-jpeg                 an HTML page labelled image/jpeg
  /broken-png                   a PNG cut short before its end (right magic bytes, fails to decode)
  /etag/<name>                  ETag and Last-Modified; 304 when If-None-Match or If-Modified-Since match
  /count/<name>                 a PNG, counting hits per name; /hits/<name> returns the count as text
  /missing/<name>               404, counting hits per name like /count (so /hits/<name> sees them)
  /ordered/<name>               a PNG, noting <name>; /order returns the names in the order served
  /image/<name>                 a PNG <width> pixels wide (1 until /set-width/<name>/<width>), with an
                                ETag naming the width; 304 when If-None-Match matches it
  /turning/<name>               the corpus's testorig.jpg (a JPEG) until /set-width/<name>/<width> is
                                asked, then /image/<name>'s PNG: a body that changes format
  /corpus/<path>                a file of the vendored corpora (Tests/Fixtures/corpus/<path>), as it is
  /slow/<ms>[/<group>]          a PNG after <ms> milliseconds; /max-inflight[/<group>] returns the most
                                /slow requests of that group (none given: the unnamed one) ever
                                served at once
  /auth/<user>/<password>       a PNG with the right Basic credentials, 401 otherwise
  /echo-headers                 the request headers as text, one "name: value" a line
  /cookie/set/<value>           sets the cookie flavour=<value>
  /cookie/get                   the request's Cookie header as text
  /digest/<header>/<verdict>    a PNG with one digest header of it: <header> is content-md5, digest-md5,
                                digest-sha256, digest-sha512, repr-sha256 or repr-sha512; <verdict> is
                                right, wrong (the digest of other bytes) or malformed (not base64 of
                                the right length)
  /digest-pair/<md5>/<sha512>   a PNG with Digest: md5=..., sha-512=..., each right or wrong
  /encoded/<coding>[/<digest>]  a PNG in a content coding: gzip, x-gzip, deflate (zlib), raw-deflate
                                (labelled deflate), br (libbrotlienc through ctypes), gzip-br (labelled
                                "gzip, br"), gzip-members (two gzip members), zstd (labelled zstd, sent
                                as is), corrupt-gzip (a flipped byte), short-gzip (cut before its end);
                                <digest> adds Repr-Digest: sha-256 of the encoded bytes (encoded) or of
                                the PNG itself (decoded)
  /gzip-bomb/<megabytes>        a PNG signature and <megabytes> MiB of zeros, gzipped as it streams
                                (chunked; 1024 MiB is about 1 MB on the wire)
  /fresh/<name>/<kind>/<value>  a PNG with an ETag and Cache-Control: <value> (kind cache-control, the
                                value URL-encoded) or Expires <value> seconds after its Date (kind
                                expires); 304 when If-None-Match matches; counted like /count. Kind
                                cache-control-on-304: the 200 says no-cache, the 304 Cache-Control: <value>
  /resumable/<name>/<kib>/<cut>/<mode>
                                a PNG of about <kib> KiB (stored deflate, so a decode reads it all) with
                                ETag and Last-Modified; the first response for <name> declares the whole
                                length and closes after <cut> percent of it. Later requests honour Range
                                and If-Range as <mode> says: range (as RFC 9110 asks), ignore-range
                                (always 200), new-etag (the image and its ETag change after the cut, so
                                If-Range fails and a 200 sends the new one), bad-range (a 206 that starts
                                at byte 0 whatever was asked), lying-etag (a 206 with another ETag),
                                last-modified (no ETag: If-Range carries the date), longer (the 206, same
                                ETag, is of a whole 1 KiB longer than first declared), encoded (the 206 says
                                Content-Encoding: gzip), repr-digest (as range, every response with
                                Repr-Digest: the sha-256 of the whole image, as RFC 9530 has it),
                                short-range (the 206 is of 101 bytes from the start asked, its
                                Content-Range saying so), past-end (the 206 sends 50 bytes past the
                                whole length, its Content-Range ending there).
                                /resumable-image/<name>/<kib>[/<version>] is that image whole (version 2:
                                after new-etag's change), leaving the state alone. /sent/<name> lists every response for <name>, one
                                line each: status, Range asked ("-" for none), bytes sent (at most), If-Range ("-")
  /stall/<name>/<bytes>         200 declaring ten times <bytes>, sends <bytes> and then nothing, until the
                                client goes away; /stalled/<name> returns the seconds from the last byte
                                sent to the client's close, as the server saw them ("open" until then)
  /trickle/<name>/<rate>/<total> 200 with <total> bytes sent at <rate> bytes/s, in tenths of a second;
                                /stalled/<name> returns the seconds from the headers to the client's
                                close (or to the last byte)
  /close/<name>                 a PNG with Connection: close, counting hits like /count, so every request
                                needs a connection of its own (a tunnelling proxy sees each one)
  /retry-after-once/<id>/<code>/<seconds>
                                that status with Retry-After: <seconds> at the first hit of <id>, then a PNG
  /paced/<count>/<seed>         the bytes of /bytes/<count>/<seed>, in 16 KiB writes through a 16 KiB send
                                buffer, so the writes keep pace with what the client reads; the time of
                                each write is noted for /chunks
  /log                          every request so far (but /log and /chunks), one "<seconds> <path>" a
                                line in arrival order, seconds on the server's monotonic clock
  /chunks                       every /paced write so far, one "<seconds> <bytes>" a line

With --tls CERT KEY it speaks HTTPS instead, with that certificate chain and key.
"""

import base64
import ctypes
import hashlib
import os
import select
import signal
import socket
import ssl
import struct
import sys
import threading
import time
import urllib.parse
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def tiny_png(width=1):
    """A valid RGB PNG, one pixel high."""
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00" + b"\xff\x00\x00" * width)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


PNG = tiny_png()
ETAG_LAST_MODIFIED = "Wed, 21 Oct 2015 07:28:00 GMT"

lock = threading.Lock()
resumable = {}
sent_records = {}
hits = {}
served_order = []
widths = {}
inflight = {}
max_inflight = {}
stalls = {}
request_log = []
chunk_log = []


def count(key):
    with lock:
        hits[key] = hits.get(key, 0) + 1
        return hits[key]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        super().setup()
        # Headers and body go out in separate writes: without this, Nagle's algorithm and the
        # client's delayed ACK hold every response back about 40 ms.
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format, *args):
        pass

    def send_body(self, status, body, content_type="text/plain", headers=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        for name, value in headers:
            self.send_header(name, value)
        if status in (204, 304):
            self.end_headers()
            return
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        parts = self.path.split("?")[0].strip("/").split("/")
        route, args = parts[0], parts[1:]
        if route not in ("log", "chunks"):
            with lock:
                request_log.append((time.monotonic(), self.path))
        handler = getattr(self, "route_" + route.replace("-", "_"), None)
        if handler is None:
            self.send_body(404, b"no such route\n")
            return
        try:
            handler(*args)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def route_ok(self, name):
        self.send_body(200, PNG, "image/png")

    def route_bytes(self, count, seed):
        seed = int(seed)
        body = bytes((i ^ i >> 8 ^ i >> 16 ^ seed) & 0xFF for i in range(int(count)))
        self.send_body(200, body, "application/octet-stream")

    def route_status(self, code):
        self.send_body(int(code), b"status " + code.encode() + b"\n")

    def route_status_body(self, code, count, framing="length"):
        """A status of its own with a body of `count` bytes, framed by length or chunked."""
        body = b"e" * int(count)
        if framing != "chunked":
            self.send_body(int(code), body)
            return
        self.send_response(int(code))
        self.send_header("Content-Type", "text/html")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for start in range(0, len(body), 16384):
            block = body[start:start + 16384]
            self.wfile.write(b"%x\r\n%s\r\n" % (len(block), block))
        self.wfile.write(b"0\r\n\r\n")

    def route_big_headers(self, count, shape="lines"):
        """A 200 with an image whose headers take `count` bytes: in 100-byte lines, or in one line."""
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        if shape == "line":
            self.send_header("X-Long", "h" * int(count))
        else:
            for index in range(int(count) // 100):
                self.send_header("X-Filler-%d" % index, "h" * 80)
        self.send_header("Content-Length", str(len(PNG)))
        self.end_headers()
        self.wfile.write(PNG)

    def route_retry_after(self, code, seconds):
        self.send_body(int(code), b"try later\n", headers=[("Retry-After", seconds)])

    def route_retry_after_once(self, ident, code, seconds):
        if count("retry-after-once/" + ident) == 1:
            self.send_body(int(code), b"try later\n", headers=[("Retry-After", seconds)])
        else:
            self.send_body(200, PNG, "image/png")

    def route_paced(self, count, seed):
        seed = int(seed)
        body = bytes((i ^ i >> 8 ^ i >> 16 ^ seed) & 0xFF for i in range(int(count)))
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 16384)
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.flush()
        for start in range(0, len(body), 16384):
            block = body[start:start + 16384]
            self.wfile.write(block)
            self.wfile.flush()
            with lock:
                chunk_log.append((time.monotonic(), len(block)))

    def route_log(self):
        with lock:
            lines = ["%.6f %s\n" % entry for entry in request_log]
        self.send_body(200, "".join(lines).encode())

    def route_chunks(self):
        with lock:
            lines = ["%.6f %d\n" % entry for entry in chunk_log]
        self.send_body(200, "".join(lines).encode())

    def route_flaky(self, ident, failures):
        if count("flaky/" + ident) <= int(failures):
            self.send_body(500, b"flaky\n")
        else:
            self.send_body(200, PNG, "image/png")

    def route_reset(self):
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Content-Length", "100000")
        self.end_headers()
        self.wfile.write(PNG + b"\x00" * 1000)
        self.wfile.flush()
        time.sleep(0.1)
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()
        self.close_connection = True

    def route_short(self):
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Content-Length", "1000")
        self.end_headers()
        self.wfile.write(PNG)
        self.wfile.flush()
        self.close_connection = True

    def route_garbled(self, kind):
        png_head = b"Content-Type: image/png\r\nContent-Length: %d\r\n" % len(PNG)
        raw = {
            "status": b"HTTP/1.1 abc Weird\r\n" + png_head + b"\r\n" + PNG,
            "http09": PNG,
            "colon": b"HTTP/1.1 200 OK\r\n" + png_head + b"NoColonHere\r\n\r\n" + PNG,
            "chunk": b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n" + PNG,
            "empty-coding": b"HTTP/1.1 200 OK\r\n" + png_head + b"Content-Encoding: \r\n\r\n" + PNG,
        }[kind]
        self.wfile.write(raw)
        self.wfile.flush()
        self.close_connection = True

    def route_hang(self):
        time.sleep(60)
        self.close_connection = True

    def route_endless(self):
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        block = b"\x00" * 16384
        while True:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(block), block))
            self.wfile.flush()

    def route_huge(self):
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Content-Length", "10000000000")
        self.end_headers()
        self.wfile.flush()
        while True:
            self.wfile.write(b"\x00")
            self.wfile.flush()
            time.sleep(0.1)

    def route_redirect_loop(self):
        self.send_body(302, b"again\n", headers=[("Location", "/redirect-loop")])

    def route_redirect_file(self):
        self.send_body(302, b"elsewhere\n", headers=[("Location", "file:///etc/passwd")])

    def route_redirect(self, name):
        self.send_body(302, b"moved\n", headers=[("Location", "/ok/" + name)])

    def route_redirect_to(self, host, name):
        port = self.server.server_address[1]
        self.send_body(302, b"moved\n", headers=[("Location", "http://%s:%d/ok/%s" % (host, port, name))])

    def route_html_as_jpeg(self):
        self.send_body(200, b"<!doctype html><html><body>not an image</body></html>\n", "image/jpeg")

    def route_broken_png(self):
        self.send_body(200, PNG[:-20], "image/png")

    def route_etag(self, name):
        etag = '"' + name + '-v1"'
        validators = [("ETag", etag), ("Last-Modified", ETAG_LAST_MODIFIED)]
        if self.headers.get("If-None-Match") == etag or \
                self.headers.get("If-Modified-Since") == ETAG_LAST_MODIFIED:
            self.send_body(304, b"", headers=validators)
        else:
            self.send_body(200, PNG, "image/png", headers=validators)

    def route_count(self, name):
        count("count/" + name)
        self.send_body(200, PNG, "image/png")

    def route_hits(self, name):
        with lock:
            value = hits.get("count/" + name, 0)
        self.send_body(200, str(value).encode())

    def route_missing(self, name):
        count("count/" + name)
        self.send_body(404, b"not here\n")

    def route_ordered(self, name):
        with lock:
            served_order.append(name)
        self.send_body(200, PNG, "image/png")

    def route_order(self):
        with lock:
            names = list(served_order)
        self.send_body(200, "".join(name + "\n" for name in names).encode())

    def route_corpus(self, *parts):
        if not parts or any(part in ("", ".", "..") for part in parts):
            self.send_body(404, b"no such file\n")
            return
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus",
                            *(urllib.parse.unquote(part) for part in parts))
        try:
            with open(path, "rb") as file:
                body = file.read()
        except OSError:
            self.send_body(404, b"no such file\n")
            return
        self.send_body(200, body, "application/octet-stream")

    def route_image(self, name):
        with lock:
            width = widths.get(name, 1)
        etag = '"%s-w%d"' % (name, width)
        if self.headers.get("If-None-Match") == etag:
            self.send_body(304, b"", headers=[("ETag", etag)])
        else:
            self.send_body(200, tiny_png(width), "image/png", headers=[("ETag", etag)])

    def route_turning(self, name):
        with lock:
            width = widths.get(name)
        if width is not None:
            self.route_image(name)
            return
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "libjpeg-turbo-testimages", "testorig.jpg")
        with open(path, "rb") as file:
            self.send_body(200, file.read(), "image/jpeg", headers=[("ETag", '"%s-jpeg"' % name)])

    def route_set_width(self, name, width):
        with lock:
            widths[name] = int(width)
        self.send_body(200, b"ok\n")

    def route_slow(self, milliseconds, group=""):
        with lock:
            inflight[group] = inflight.get(group, 0) + 1
            max_inflight[group] = max(max_inflight.get(group, 0), inflight[group])
        try:
            time.sleep(int(milliseconds) / 1000)
        finally:
            with lock:
                inflight[group] -= 1
        self.send_body(200, PNG, "image/png")

    def route_max_inflight(self, group=""):
        with lock:
            value = max_inflight.get(group, 0)
        self.send_body(200, str(value).encode())

    def route_auth(self, user, password):
        expected = "Basic " + base64.b64encode((user + ":" + password).encode()).decode()
        if self.headers.get("Authorization") == expected:
            self.send_body(200, PNG, "image/png")
        else:
            self.send_body(401, b"who are you\n", headers=[("WWW-Authenticate", 'Basic realm="fixture"')])

    def route_echo_headers(self):
        lines = "".join(name + ": " + value + "\n" for name, value in self.headers.items())
        self.send_body(200, lines.encode())

    def route_digest(self, kind, verdict):
        self.send_body(200, PNG, "image/png", headers=[digest_header(kind, verdict)])

    def route_digest_pair(self, md5, sha512):
        def value(algorithm, verdict):
            return b64(hashlib.new(algorithm, PNG if verdict == "right" else b"other").digest())
        header = "md5=%s, sha-512=%s" % (value("md5", md5), value("sha512", sha512))
        self.send_body(200, PNG, "image/png", headers=[("Digest", header)])

    def route_encoded(self, coding, digest=""):
        label, encode = ENCODINGS[coding]
        try:
            body = encode()
        except OSError as error:  # no libbrotlienc: say so, and the test that asked fails
            self.send_body(500, ("cannot encode: %s\n" % error).encode())
            return
        headers = [("Content-Encoding", label)]
        if digest:
            covered = body if digest == "encoded" else PNG
            headers.append(("Repr-Digest", "sha-256=:%s:" % b64(hashlib.sha256(covered).digest())))
        self.send_body(200, body, "image/png", headers=headers)

    def route_gzip_bomb(self, megabytes):
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        encoder = zlib.compressobj(9, zlib.DEFLATED, 16 + 15)
        zeros = bytes(1 << 20)

        def chunk(data):
            if data:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

        chunk(encoder.compress(PNG[:8]))
        for _ in range(int(megabytes)):
            chunk(encoder.compress(zeros))
        chunk(encoder.flush())
        self.wfile.write(b"0\r\n\r\n")

    def route_resumable(self, name, kib, cut, mode):
        with lock:
            state = resumable.setdefault(name, {"responses": 0, "version": 1})
            first = state["responses"] == 0
            state["responses"] += 1
            if not first and mode in ("new-etag",):
                state["version"] = 2
            version = state["version"]
        body = big_png(name, kib, version)
        etag = '"%s-v%d"' % (name, version)
        shown_etag = '"%s-v2"' % name if mode == "lying-etag" and not first else etag
        validators = [("Last-Modified", ETAG_LAST_MODIFIED)]
        if mode != "last-modified":
            validators.append(("ETag", shown_etag))
        if mode == "repr-digest":
            validators.append(("Repr-Digest", "sha-256=:%s:" % b64(hashlib.sha256(body).digest())))
        asked = self.headers.get("Range")
        if_range = self.headers.get("If-Range")
        start = None
        if asked and mode != "ignore-range" and asked.startswith("bytes=") and asked.endswith("-"):
            current = ETAG_LAST_MODIFIED if mode == "last-modified" else etag
            if if_range is None or if_range == current:
                start = int(asked[len("bytes="):-1])
        status, sent = 200, body
        headers = list(validators)
        if start is not None and start < len(body):
            status = 206
            begin = 0 if mode == "bad-range" else start
            whole = body + bytes(1024) if mode == "longer" else body
            sent = whole[begin:]
            end = len(whole) - 1
            if mode == "short-range":
                sent, end = sent[:101], begin + 100
            elif mode == "past-end":
                sent, end = sent + b"EXTRA" * 10, end + 50
            headers.append(("Content-Range", "bytes %d-%d/%d" % (begin, end, len(whole))))
            if mode == "encoded":
                headers.append(("Content-Encoding", "gzip"))
        self.send_response(status)
        self.send_header("Content-Type", "image/png")
        for header, value in headers:
            self.send_header(header, value)
        self.send_header("Content-Length", str(len(sent)))
        self.end_headers()
        if first:
            sent = sent[:len(sent) * int(cut) // 100]
        # Recorded before it is written, so the record is there by the time the client has the last
        # byte; a client that hangs up early got fewer bytes than recorded, never more.
        with lock:
            sent_records.setdefault(name, []).append((status, asked or "-", len(sent), if_range or "-"))
        for offset in range(0, len(sent), 65536):
            self.wfile.write(sent[offset:offset + 65536])
        self.wfile.flush()
        if first:
            self.close_connection = True

    def route_fresh(self, name, kind, value):
        """A PNG with an ETag and a freshness of its own, counted like /count (/hits/<name>): kind
        cache-control sends Cache-Control: <value> (URL-decoded), cache-control-on-304 sends it on the
        304 only (no-cache on the 200), expires sends Expires <value> seconds after its Date; 304 when
        If-None-Match matches."""
        count("count/" + name)
        etag = '"%s-fresh"' % name
        now = time.time()
        headers = [("ETag", etag), ("Date", http_date(now))]
        revalidating = self.headers.get("If-None-Match") == etag
        if kind == "cache-control":
            headers.append(("Cache-Control", urllib.parse.unquote(value)))
        elif kind == "cache-control-on-304":
            headers.append(("Cache-Control", urllib.parse.unquote(value) if revalidating else "no-cache"))
        else:
            headers.append(("Expires", http_date(now + int(value))))
        if revalidating:
            self.send_body(304, b"", headers=headers)
        else:
            self.send_body(200, PNG, "image/png", headers=headers)

    def route_resumable_image(self, name, kib, version="1"):
        """The image /resumable/<name>/<kib>/... serves, whole, touching none of its state."""
        self.send_body(200, big_png(name, kib, int(version)), "image/png")

    def route_sent(self, name):
        with lock:
            records = list(sent_records.get(name, []))
        lines = "".join("%d %s %d %s\n" % record for record in records)
        self.send_body(200, lines.encode())
    def route_stall(self, name, count):
        body = bytes(int(count))
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(10 * len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()
        sent = time.monotonic()
        with lock:
            stalls[name] = None
        # Wait for the client to close: readable with nothing to read. Gives up after two minutes.
        while time.monotonic() - sent < 120:
            readable, _, _ = select.select([self.connection], [], [], 0.02)
            if readable:
                try:
                    if not self.connection.recv(1, socket.MSG_PEEK):
                        break
                except (OSError, ValueError):
                    break
                time.sleep(0.02)
        with lock:
            stalls[name] = time.monotonic() - sent
        self.close_connection = True

    def route_trickle(self, name, rate, total):
        rate, total = int(rate), int(total)
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(total))
        self.end_headers()
        self.wfile.flush()
        started = time.monotonic()
        with lock:
            stalls[name] = None
        sent = 0
        piece = max(rate // 10, 1)
        try:
            while sent < total:
                block = bytes(min(piece, total - sent))
                self.wfile.write(block)
                self.wfile.flush()
                sent += len(block)
                time.sleep(0.1)
        except OSError:
            pass
        with lock:
            stalls[name] = time.monotonic() - started
        self.close_connection = True

    def route_close(self, name):
        count("count/" + name)
        self.close_connection = True
        self.send_body(200, PNG, "image/png", headers=[("Connection", "close")])

    def route_stalled(self, name):
        with lock:
            value = stalls.get(name, "none")
        text = "open" if value is None else value if isinstance(value, str) else "%.3f" % value
        self.send_body(200, text.encode())

    def route_cookie(self, action, value=""):
        if action == "set":
            self.send_body(200, b"set\n", headers=[("Set-Cookie", "flavour=" + value + "; Path=/")])
        else:
            self.send_body(200, (self.headers.get("Cookie") or "").encode())


def big_png(name, kib, version):
    """A valid RGB PNG of about `kib` KiB, its pixels a function of name and version, its IDAT stored
    (deflate level 0) so that every byte of it is image data a decode must read."""
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    width = 256
    height = max(1, int(kib) * 1024 // (1 + 3 * width))
    seed = zlib.crc32(("%s-%d" % (name, version)).encode())
    row = bytes((i * 7 + seed) & 0xFF for i in range(3 * width))
    raw = b"".join(b"\x00" + row[y % 251:] + row[:y % 251] for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 0)) + chunk(b"IEND", b"")


def http_date(seconds):
    return time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(seconds))


def brotli(data):
    """`data` in brotli, through Debian's libbrotlienc (the bootstrap's libbrotli-dev brings it)."""
    library = ctypes.CDLL("libbrotlienc.so.1")
    size = ctypes.c_size_t(library.BrotliEncoderMaxCompressedSize(ctypes.c_size_t(len(data))))
    out = ctypes.create_string_buffer(size.value)
    # Quality 11, a 4 MiB window (22), the generic mode (0).
    if not library.BrotliEncoderCompress(11, 22, 0, ctypes.c_size_t(len(data)), data, ctypes.byref(size), out):
        raise RuntimeError("BrotliEncoderCompress failed")
    return out.raw[:size.value]


def gzip_bytes(data):
    encoder = zlib.compressobj(9, zlib.DEFLATED, 16 + 15)
    return encoder.compress(data) + encoder.flush()


def raw_deflate(data):
    encoder = zlib.compressobj(9, zlib.DEFLATED, -15)
    return encoder.compress(data) + encoder.flush()


def flipped(data, index):
    return data[:index] + bytes([data[index] ^ 0xFF]) + data[index + 1:]


ENCODINGS = {
    "gzip": ("gzip", lambda: gzip_bytes(PNG)),
    "x-gzip": ("x-gzip", lambda: gzip_bytes(PNG)),
    "deflate": ("deflate", lambda: zlib.compress(PNG, 9)),
    "raw-deflate": ("deflate", lambda: raw_deflate(PNG)),
    "br": ("br", lambda: brotli(PNG)),
    "gzip-br": ("gzip, br", lambda: brotli(gzip_bytes(PNG))),
    "gzip-members": ("gzip", lambda: gzip_bytes(PNG[:30]) + gzip_bytes(PNG[30:])),
    "zstd": ("zstd", lambda: PNG),
    "corrupt-gzip": ("gzip", lambda: flipped(gzip_bytes(PNG), 20)),
    "short-gzip": ("gzip", lambda: gzip_bytes(PNG)[:-12]),
}


def b64(data):
    return base64.b64encode(data).decode()


def digest_header(kind, verdict):
    """The header /digest/<kind>/<verdict> sends with PNG."""
    algorithm = {"content-md5": "md5", "digest-md5": "md5", "digest-sha256": "sha256", "digest-sha512": "sha512",
                 "repr-sha256": "sha256", "repr-sha512": "sha512"}[kind]
    value = hashlib.new(algorithm, PNG if verdict == "right" else PNG + b"other").digest()
    text = b64(value)[:-4] + "*!*=" if verdict == "malformed" else b64(value)
    if kind == "content-md5":
        return "Content-MD5", text
    if kind.startswith("digest-"):
        return "Digest", {"md5": "MD5", "sha256": "SHA-256", "sha512": "SHA-512"}[algorithm] + "=" + text
    return "Repr-Digest", "%s=:%s:" % ({"sha256": "sha-256", "sha512": "sha-512"}[algorithm], text)


def exit_with_parent():
    """Exits once the process that started the server is gone, so a crashed test leaves no server behind."""
    parent = os.getppid()
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


def serve(server):
    """Prints the server's port and serves until SIGTERM, SIGINT or the parent's exit. Also the
    proxies' (proxies.py)."""
    # The spawning thread may have blocked signals, and children inherit the mask: let SIGTERM through.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    threading.Thread(target=exit_with_parent, daemon=True).start()
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    sys.exit(0)


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    if len(sys.argv) == 4 and sys.argv[1] == "--tls":
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[2], sys.argv[3])
        server.socket = context.wrap_socket(server.socket, server_side=True)
    serve(server)


if __name__ == "__main__":
    main()
