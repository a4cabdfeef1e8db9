#!/usr/bin/env python3
"""Writes N-1 entry rows of the shape cache-filler stores (URLs over 8 hosts and 5 sets, sizes
204-2,203 bytes, ages spread over 30 days as age.py gives them) straight into the index of an
existing cache, without the files: for measuring the index's share of a clean (every unlink then
finds nothing). The rows get SQLite's own row ids, not the ones index schema 14 makes from their paths
(XXH3 is not in Python's standard library), so prefetchd does not find them by path: a model of
deletes only. Usage: fake_index.py CACHE_DIR N   (make CACHE_DIR with `cache-filler DIR 1` first)"""
import hashlib, os, random, sqlite3, sys, time
root, n = sys.argv[1], int(sys.argv[2])
db = sqlite3.connect(os.path.join(root, "index.sqlite"))
db.execute("PRAGMA journal_mode=WAL"); db.execute("PRAGMA synchronous=OFF")
INSERT = ("INSERT INTO entries(url, cache_key, set_name, relative_path, byte_size, format, width, height, etag,"
          " last_modified, checksum, fetched_at, modified_at, accessed_at, validated_at)"
          " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")
now = time.time(); random.seed(7)
rows = []
for number in range(1, n):
    url = f"https://img{number % 8}.example.com/catalog/{number}.jpg"
    h = hashlib.sha256(url.encode()).hexdigest()
    when = now - (random.randrange(30) + 0.5 + random.uniform(-0.3, 0.3)) * 86400
    rows.append((url, url, f"set{number % 5}", f"{h[:2]}/{h}.jpg", 204 + (number * 7919) % 2000, "jpeg", None, None, None, None,
                 "xxh3:" + h[:32], when, when, when, when))
    if len(rows) == 50000:
        db.executemany(INSERT, rows)
        db.commit(); rows = []
db.executemany(INSERT, rows)
db.commit(); db.execute("PRAGMA wal_checkpoint(TRUNCATE)"); db.close()
