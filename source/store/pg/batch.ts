/**
 * Calls that arrive together go to the database as one: items asked for in one turn of the event
 * loop, and those asked for while `maxInFlight` batches are on their way, leave in the next batch
 * (at most `maxBatch` items). At a low rate a batch is one item sent at the end of its turn; under
 * load the batches grow, and the statements, round trips and commits per request fall. `send`
 * answers each item, in order; when it fails, every item of its batch fails with its error.
 */
export function createBatcher<I, O>(send: (items: I[]) => Promise<O[]>, options: { maxInFlight: number; maxBatch: number }): (item: I) => Promise<O> {
  let waiting: Array<{ item: I; resolve: (value: O) => void; reject: (error: unknown) => void }> = [];
  let inFlight = 0;
  let scheduled = false;

  const flush = (): void => {
    scheduled = false;
    while (inFlight < options.maxInFlight && waiting.length > 0) {
      const batch = waiting.slice(0, options.maxBatch);
      waiting = waiting.slice(batch.length);
      inFlight += 1;
      void send(batch.map((entry) => entry.item)).then((answers) => {
        if (answers.length !== batch.length) throw new Error(`a batch of ${batch.length} got ${answers.length} answers`);
        batch.forEach((entry, index) => entry.resolve(answers[index]!));
      }).catch((error: unknown) => {
        for (const entry of batch) entry.reject(error);
      }).finally(() => {
        inFlight -= 1;
        schedule();
      });
    }
  };
  // At the end of the turn, not at once: the requests read in the same turn share the batch.
  const schedule = (): void => {
    if (scheduled || waiting.length === 0 || inFlight >= options.maxInFlight) return;
    scheduled = true;
    setImmediate(flush);
  };

  return (item) => new Promise<O>((resolve, reject) => {
    waiting.push({ item, resolve, reject });
    schedule();
  });
}
