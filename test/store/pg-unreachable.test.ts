import net from 'node:net';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createPgDeliveryStore } from '../../source/store/pg/webhook-deliveries.js';
import type { PgStore } from '../../source/store/pg/pg-store.js';
import { StoreUnavailableError } from '../../source/store/store-fault.js';

/** A PostgreSQL store whose server is gone: a real pool on a loopback port nothing listens on. */
async function deadStore(): Promise<PgStore> {
  const port = await new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port: free } = server.address() as net.AddressInfo;
      server.close(() => resolve(free));
    });
  });
  const pool = new pg.Pool({ host: '127.0.0.1', port, user: 'u', password: 'p', database: 'd', connectionTimeoutMillis: 2_000 });
  pool.on('error', () => {});
  return { pool, query: (sql, values) => pool.query(sql, values), intakeQuery: (sql, values) => pool.query(sql, values), recordWrite: async (sql, values) => { await pool.query(sql, values); }, carryingQuery: (sql, values) => pool.query(sql, values), transaction: () => Promise.reject(new Error('unused')), close: () => pool.end() };
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => { for (const close of closers.splice(0)) await close(); });

describe('a PostgreSQL store that cannot be reached', () => {
  it('refuses accepts and claims with a store fault (the intake answers 503 with retry-after), not an internal error', async () => {
    const store = await deadStore();
    closers.push(() => store.close());
    const deliveries = createPgDeliveryStore(store, 'node-a');
    const accepted = deliveries.accept({ route: 'gh', deliveryId: 'd-1', event: 'push', headers: {}, body: Buffer.from('{}'), prompt: 'p', skills: [], target: 'log', targetExtra: {}, receivedAtMs: 1 }, 60_000);
    await expect(accepted).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(accepted).rejects.toMatchObject({ fault: { kind: 'unreachable' }, retryAfterSeconds: 5, message: expect.stringContaining('the shared PostgreSQL store cannot be reached') });
    await expect(deliveries.claimQueued(1, 1)).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});
