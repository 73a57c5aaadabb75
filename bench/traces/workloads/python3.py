# SPDX-License-Identifier: GPL-2.0
# The python3 workload: JSON records in, grouped and sorted, JSON out, and
# a few large buffers (glibc malloc serves those with mmap, and munmap
# returns them).  Deterministic: a fixed seed.
import json
import random

random.seed(26)
words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]
records = [{"id": i, "name": "-".join(random.choices(words, k=3)),
            "score": random.random(), "tags": random.sample(words, 3)}
           for i in range(300)]
text = json.dumps(records)
for round in range(2):
    rows = json.loads(text)
    groups = {}
    for r in rows:
        groups.setdefault(r["name"].split("-")[0], []).append(r)
    summary = {k: sorted(v, key=lambda r: r["score"])[:10] for k, v in groups.items()}
    text = json.dumps(rows)
    blobs = [bytes(256 * 1024 * (1 + j % 4)) for j in range(8)]
    joined = b"".join(blobs)
    del blobs, joined, rows, groups
print(len(text), len(summary))
