-- SPDX-License-Identifier: GPL-2.0
-- The sqlite3 workload: a table filled, indexed, queried, updated,
-- partly deleted and vacuumed, in a file on tmpfs.
PRAGMA cache_size = -16384;
CREATE TABLE t(id INTEGER PRIMARY KEY, k TEXT, v BLOB, n INTEGER);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000)
INSERT INTO t SELECT x, printf('key%08d', (x * 7919) % 2000), zeroblob(100 + x % 400), x % 97 FROM c;
CREATE INDEX t_k ON t(k);
CREATE INDEX t_n ON t(n);
SELECT n, count(*), sum(length(v)) FROM t GROUP BY n ORDER BY 3 DESC LIMIT 3;
UPDATE t SET v = zeroblob(50) WHERE n % 3 = 0;
DELETE FROM t WHERE n % 5 = 0;
SELECT count(*) FROM t WHERE k > 'key00001000';
VACUUM;
SELECT count(*), sum(n) FROM t;
