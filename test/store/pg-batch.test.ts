import { describe, expect, it } from 'vitest';
import { createBatcher } from '../../source/store/pg/batch.js';

/** A send whose batches the test settles by hand. */
function manualSend() {
  const batches: Array<{ items: number[]; resolve: (answers: string[]) => void; reject: (error: Error) => void }> = [];
  const send = (items: number[]) => new Promise<string[]>((resolve, reject) => batches.push({ items, resolve, reject }));
  return { batches, send };
}
/** A few turns of the event loop: a settled batch's bookkeeping runs in promise callbacks, then the next batch leaves at the end of a turn. */
const turn = async () => {
  for (let index = 0; index < 3; index += 1) await new Promise((resolve) => setImmediate(resolve));
};

describe('createBatcher', () => {
  it('sends the items of one turn together, and those asked while batches are in flight in the next, up to maxBatch', async () => {
    const { batches, send } = manualSend();
    const call = createBatcher(send, { maxInFlight: 1, maxBatch: 3 });
    const first = [1, 2].map((item) => call(item));
    await turn();
    expect(batches.map((batch) => batch.items)).toEqual([[1, 2]]);
    const later = [3, 4, 5, 6].map((item) => call(item));
    await turn();
    expect(batches).toHaveLength(1); // one in flight at most
    batches[0]!.resolve(['a1', 'a2']);
    expect(await Promise.all(first)).toEqual(['a1', 'a2']);
    await turn();
    expect(batches.map((batch) => batch.items)).toEqual([[1, 2], [3, 4, 5]]);
    batches[1]!.resolve(['a3', 'a4', 'a5']);
    await turn();
    expect(batches[2]!.items).toEqual([6]);
    batches[2]!.resolve(['a6']);
    expect(await Promise.all(later)).toEqual(['a3', 'a4', 'a5', 'a6']);
  });

  it('keeps maxInFlight batches on their way at once', async () => {
    const { batches, send } = manualSend();
    const call = createBatcher(send, { maxInFlight: 2, maxBatch: 2 });
    const answers = [1, 2, 3, 4, 5].map((item) => call(item));
    await turn();
    expect(batches.map((batch) => batch.items)).toEqual([[1, 2], [3, 4]]);
    batches[1]!.resolve(['3', '4']);
    await turn();
    expect(batches.map((batch) => batch.items)).toEqual([[1, 2], [3, 4], [5]]);
    batches[0]!.resolve(['1', '2']);
    batches[2]!.resolve(['5']);
    expect(await Promise.all(answers)).toEqual(['1', '2', '3', '4', '5']);
  });

  it('fails every item of a failed batch with its error, and only those; a wrong count of answers fails the batch', async () => {
    const { batches, send } = manualSend();
    const call = createBatcher(send, { maxInFlight: 1, maxBatch: 2 });
    const failing = [1, 2].map((item) => call(item));
    const next = call(3);
    await turn();
    batches[0]!.reject(new Error('connection lost'));
    for (const item of failing) await expect(item).rejects.toThrow('connection lost');
    await turn();
    batches[1]!.resolve(['3', 'extra']);
    await expect(next).rejects.toThrow('a batch of 1 got 2 answers');
  });
});
