#!/usr/bin/env python3
"""The peer of prefetchd's store path, in Python's standard library, for bench/cache/run.sh.

  peer_store.py store DIR COUNT         the same entries as cache-filler, the same way: a temp file,
                                         a SHA-256 checksum, a rename into <ab>/<sha256>.jpg, a row in
                                         a SQLite (WAL) index, committed every 256 rows
  peer_store.py lookup DIR COUNT TOTAL  the same lookups as cache-probe: row by key, stat of the file,
                                         last access updated, committed every 256
"""
import hashlib
import os
import sqlite3
import sys
import time


def url_of(number):
    return "https://img%d.example.com/catalog/%d.jpg" % (number % 8, number)


def body_of(number):
    length = 200 + (number * 7919) % 2000
    return bytes([0xFF, 0xD8, 0xFF, 0xE0]) + bytes(((i * 13 + number) & 0xFF) for i in range(length))


def open_index(folder):
    db = sqlite3.connect(os.path.join(folder, "index.sqlite"), isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("CREATE TABLE IF NOT EXISTS entries (key TEXT PRIMARY KEY, path TEXT, size INTEGER,"
               " checksum TEXT, fetched REAL, accessed REAL)")
    return db


def store(folder, count):
    os.makedirs(os.path.join(folder, "tmp"), exist_ok=True)
    for prefix in range(256):
        os.makedirs(os.path.join(folder, "%02x" % prefix), exist_ok=True)
    db = open_index(folder)
    db.execute("BEGIN")
    started = time.monotonic()
    for number in range(count):
        key = url_of(number)
        body = body_of(number)
        temp = os.path.join(folder, "tmp", "%d-%d.part" % (os.getpid(), number))
        with open(temp, "wb") as handle:
            handle.write(body)
        checksum = hashlib.sha256(body).hexdigest()
        name = hashlib.sha256(key.encode()).hexdigest()
        relative = "%s/%s.jpg" % (name[:2], name)
        os.rename(temp, os.path.join(folder, relative))
        now = time.time()
        db.execute("INSERT OR REPLACE INTO entries VALUES (?, ?, ?, ?, ?, ?)",
                   (key, relative, len(body), checksum, now, now))
        if number % 256 == 255:
            db.execute("COMMIT")
            db.execute("BEGIN")
    db.execute("COMMIT")
    print("stored %d entries in %.3f s" % (count, time.monotonic() - started))


def lookup(folder, count, total):
    db = open_index(folder)
    state = 0x9E3779B97F4A7C15
    hits = 0
    db.execute("BEGIN")
    started = time.monotonic()
    for step in range(count):
        state = (state * 6364136223846793005 + 1442695040888963407) & 0xFFFFFFFFFFFFFFFF
        key = url_of((state >> 33) % total)
        row = db.execute("SELECT path, size FROM entries WHERE key = ?", (key,)).fetchone()
        if row and os.stat(os.path.join(folder, row[0])).st_size == row[1]:
            hits += 1
            db.execute("UPDATE entries SET accessed = ? WHERE key = ?", (time.time(), key))
        if step % 256 == 255:
            db.execute("COMMIT")
            db.execute("BEGIN")
    db.execute("COMMIT")
    print("lookups %d hits %d seconds %.3f" % (count, hits, time.monotonic() - started))


if __name__ == "__main__":
    if sys.argv[1] == "store":
        store(sys.argv[2], int(sys.argv[3]))
    else:
        lookup(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
