import pg from 'pg';
import { startParkingPooler } from '/work/main/packages/server/test/fixtures/fake-postgres.ts';
const parking = await startParkingPooler({ login: false });
const clients = new Set<pg.Client>();
class K extends pg.Client { constructor(c?: any) { super(c); clients.add(this); this.once('end', () => clients.delete(this)); } }
const pool = new pg.Pool({ host: '127.0.0.1', port: parking.port, user: 'x', database: 'y', connectionTimeoutMillis: 3000, Client: K as any });
const t0 = Date.now();
pool.query('select 1').then(() => console.log('q ok'), (e) => console.log('q err', e.message, Date.now() - t0));
await parking.parked();
console.log('parked; clients', clients.size, 'pool total', pool.totalCount);
for (const c of clients) void c.end().catch(() => undefined);
await pool.end();
console.log('pool ended after', Date.now() - t0, 'ms');
await parking.close();
