/**
 * A node's record writes on PostgreSQL (a run's rows, the record of a send to a target that costs
 * nothing to repeat) ride with its next statement on the runs' path instead of making round trips
 * of their own. A webhook run's start, end and output record then go in the statement of its
 * final state: one round trip and one commit instead of four. Each round trip wakes the node and a
 * PostgreSQL backend, and on a machine the nodes share with the database that is more of the CPU
 * per webhook than the work (docs/perf/cluster-bench.md, "Record writes carried").
 *
 * The rules:
 * - writes commit in the order they were asked for: one batch is on its way at a time;
 * - a write commits no later than the next carrying statement made after it (it goes with it, or
 *   with a batch before it), so a webhook's final state never lands without its run's rows;
 * - a write that no statement carries within `waitMs` goes alone (a long run's start row shows in
 *   the store at once for the consoles of other nodes);
 * - a batch that PostgreSQL refuses is rolled back whole: its writes are then made one by one, so
 *   one bad row loses only itself, and the carrying statement is made alone;
 * - a write's promise settles once it is committed, or with the error that lost it.
 */
export interface CarriedWrites<S> {
  /** Queues a write; settles once committed. */
  add(statement: S): Promise<void>;
  /**
   * `statement` with every write waiting, in one round trip and one transaction (`together` sends
   * them, the carrying statement last, and answers each one's result), after the batches sent
   * before it. With nothing waiting, or a statement that cannot go with others (undefined), `alone`
   * makes it on its own, still after what was asked for before it.
   */
  carry<R>(statement: S | undefined, together: (statements: S[]) => Promise<R[]>, alone: () => Promise<R>): Promise<R>;
  /** Sends what waits now and settles when every batch is committed (the store's close). */
  flush(): Promise<void>;
}

export interface CarriedWritesDeps<S> {
  /** Sends one or more statements alone, in one transaction (the record lane: no wait for the disk). */
  send(statements: S[]): Promise<unknown>;
  /** True when PostgreSQL refused the text and rolled it back (not a lost connection: then nobody knows). */
  rolledBack(error: unknown): boolean;
  waitMs: number;
}

interface Waiting<S> {
  statement: S;
  resolve(): void;
  reject(error: unknown): void;
}

export function createCarriedWrites<S>(deps: CarriedWritesDeps<S>): CarriedWrites<S> {
  let waiting: Array<Waiting<S>> = [];
  let timer: NodeJS.Timeout | undefined;
  /** The commit of the batch sent last: the next one goes after it. */
  let last: Promise<unknown> = Promise.resolve();

  const take = (): Array<Waiting<S>> => {
    const batch = waiting;
    waiting = [];
    clearTimeout(timer);
    timer = undefined;
    return batch;
  };

  const inOrder = <T>(send: () => Promise<T>): Promise<T> => {
    const sent = last.then(send);
    last = sent.catch(() => {});
    return sent;
  };

  /** After a batch was refused: each write on its own, so that one bad row loses only itself. */
  const oneByOne = async (batch: Array<Waiting<S>>) => {
    for (const write of batch) await deps.send([write.statement]).then(() => write.resolve(), write.reject);
  };

  const sendAlone = async (batch: Array<Waiting<S>>) => {
    try {
      await deps.send(batch.map((write) => write.statement));
      for (const write of batch) write.resolve();
    } catch (error) {
      if (batch.length > 1 && deps.rolledBack(error)) return oneByOne(batch);
      for (const write of batch) write.reject(error);
    }
  };

  const flushAlone = () => {
    const batch = take();
    return batch.length === 0 ? last : inOrder(() => sendAlone(batch));
  };

  return {
    add(statement) {
      return new Promise<void>((resolve, reject) => {
        waiting.push({ statement, resolve, reject });
        timer ??= setTimeout(() => void flushAlone(), deps.waitMs);
      });
    },
    carry(statement, together, alone) {
      // Nothing to carry: after the batch on its way (it may hold this statement's own run's rows), not before the next.
      if (waiting.length === 0) return last.then(alone);
      const batch = take();
      if (statement === undefined) return inOrder(async () => { await sendAlone(batch); return alone(); });
      return inOrder(async () => {
        try {
          const results = await together([...batch.map((write) => write.statement), statement]);
          for (const write of batch) write.resolve();
          return results.at(-1)!;
        } catch (error) {
          if (!deps.rolledBack(error)) {
            for (const write of batch) write.reject(error);
            throw error;
          }
          await oneByOne(batch);
          return alone();
        }
      });
    },
    async flush() {
      await flushAlone();
    },
  };
}
