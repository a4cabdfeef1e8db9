#!/usr/bin/env python3
"""Gives every entry of a cache built by cache-filler an age: first fetch, last modification and last
access all set to now - (d + 0.5 + jitter) days, d in 0..29, in the index and as the file's mtime,
so that the index-driven clean and the scan-based anchors see the same clocks.
Usage: age.py CACHE_DIR"""
import os, random, sqlite3, sys, time

root = sys.argv[1]
now = time.time()
random.seed(7)
db = sqlite3.connect(os.path.join(root, "index.sqlite"), timeout=60)
rows = db.execute("SELECT id, relative_path FROM entries").fetchall()
updates = []
for row_id, relative_path in rows:
    age_days = random.randrange(30) + 0.5 + random.uniform(-0.3, 0.3)
    when = now - age_days * 86400
    updates.append((when, when, when, row_id))
    ns = int(when * 1e9)
    os.utime(os.path.join(root, relative_path), ns=(ns, ns))
db.executemany("UPDATE entries SET fetched_at = ?, modified_at = ?, accessed_at = ? WHERE id = ?", updates)
db.commit()
db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
db.close()
print(f"aged {len(rows)} entries")
