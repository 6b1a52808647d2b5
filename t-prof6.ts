import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from './data/store.js';
for (const path of [join(mkdtempSync(join(tmpdir(), 'prof-')), 'x.duckdb'), ':memory:']) {
  const store = await Store.open(path);
  await store.run(`CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER)`);
  await store.run(`INSERT INTO t SELECT i, 0 FROM range(10000) r(i)`);
  let t = performance.now();
  for (let i = 0; i < 50; i++) await store.run(`UPDATE t SET v = v + 1 WHERE id = ?`, [i]);
  const upd = (performance.now() - t) / 50;
  t = performance.now();
  for (let i = 0; i < 50; i++) await store.all(`SELECT v FROM t WHERE id = ?`, [i]);
  console.log(path.slice(-12), 'update', upd.toFixed(2), 'select', ((performance.now() - t) / 50).toFixed(2));
  await store.close();
}
