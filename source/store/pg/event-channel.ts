import pg from 'pg';

const CHANNEL = 'switchboard_events';
const RECONNECT_MS = 5_000;

export interface EventChannel {
  /** NOTIFY every listening node (this one included: callers skip their own). */
  publish(payload: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * LISTEN/NOTIFY on a connection of its own (a pooled one would lose the LISTEN when returned).
 * When the connection drops, it is opened again every 5 s; what was sent meanwhile is not seen
 * here (the lists read from the store again are the record).
 */
export async function openEventChannel(url: string, onPayload: (payload: string) => void, onTrouble: (error: unknown) => void): Promise<EventChannel> {
  let client: pg.Client | undefined;
  let closing = false;
  let retry: NodeJS.Timeout | undefined;
  const reconnect = () => {
    retry = setTimeout(() => void connect().catch((error: unknown) => {
      onTrouble(error);
      if (!closing) reconnect();
    }), RECONNECT_MS);
    retry.unref();
  };
  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
    next.on('notification', (message) => { if (message.channel === CHANNEL && message.payload) onPayload(message.payload); });
    const lost = (error?: unknown) => {
      if (closing || client !== next) return;
      client = undefined;
      onTrouble(error ?? new Error('the event channel connection ended'));
      reconnect();
    };
    next.on('error', lost);
    next.on('end', () => lost());
    await next.connect();
    await next.query(`LISTEN ${CHANNEL}`);
    client = next;
  };
  await connect();
  return {
    async publish(payload) {
      await client?.query('SELECT pg_notify($1, $2)', [CHANNEL, payload]);
    },
    async close() {
      closing = true;
      clearTimeout(retry);
      await client?.end().catch(() => {});
    },
  };
}
