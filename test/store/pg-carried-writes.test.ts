import { describe, expect, it } from 'vitest';
import { createCarriedWrites } from '../../source/store/pg/carried-writes.js';

/** What reached the database, batch by batch (as text); `refuse` makes a batch fail as a refused or a lost one. */
function fakeDatabase(refuse: (text: string) => 'refused' | 'lost' | undefined = () => undefined) {
  const sent: string[] = [];
  const answer = async (statements: string[]) => {
    const text = statements.map((statement) => `${statement};`).join('\n');
    // The first batch is the slowest: a later one sent beside it would be answered first.
    await new Promise((resolve) => setTimeout(resolve, sent.length === 0 && !text.includes('alone') ? 30 : 5));
    sent.push(text);
    const failure = refuse(text);
    if (failure) throw Object.assign(new Error(failure), { refused: failure === 'refused' });
    return text.split(';\n').map((statement) => `result of ${statement.replace(/;$/, '')}`);
  };
  return { sent, answer };
}

describe('record writes carried by the next statement', () => {
  it('go with the carrying statement in one text, in order, and settle once it is answered', async () => {
    const db = fakeDatabase();
    const carried = createCarriedWrites<string>({ send: db.answer, rolledBack: () => true, waitMs: 1_000 });
    const writes = [carried.add('INSERT a'), carried.add('UPDATE a')];
    const result = await carried.carry('UPDATE final', db.answer, () => Promise.resolve('alone'));
    await Promise.all(writes);
    expect(db.sent).toEqual(['INSERT a;\nUPDATE a;\nUPDATE final;']);
    expect(result).toBe('result of UPDATE final');
  });

  it('send a batch only after the one before it, and make a statement with nothing to carry wait for it', async () => {
    const db = fakeDatabase();
    const carried = createCarriedWrites<string>({ send: db.answer, rolledBack: () => true, waitMs: 1_000 });
    void carried.add('INSERT a');
    const first = carried.carry('UPDATE one', db.answer, () => Promise.resolve('alone'));
    void carried.add('INSERT b');
    const second = carried.carry('UPDATE two', db.answer, () => Promise.resolve('alone'));
    const third = carried.carry('UPDATE three', db.answer, async () => { db.sent.push('UPDATE three alone'); return 'alone'; });
    await Promise.all([first, second, third]);
    expect(db.sent).toEqual(['INSERT a;\nUPDATE one;', 'INSERT b;\nUPDATE two;', 'UPDATE three alone']);
  });

  it('go alone after waitMs when nothing carries them, and at once on flush', async () => {
    const db = fakeDatabase();
    const carried = createCarriedWrites<string>({ send: db.answer, rolledBack: () => true, waitMs: 30 });
    const asked = performance.now();
    await Promise.all([carried.add('INSERT a'), carried.add('INSERT b')]);
    expect(performance.now() - asked).toBeGreaterThanOrEqual(29);
    expect(db.sent).toEqual(['INSERT a;\nINSERT b;']);
    const flushed = carried.add('INSERT c');
    await carried.flush();
    await flushed;
    expect(db.sent.at(-1)).toBe('INSERT c;');
  });

  it('when the database refuses a batch: each write on its own, then the carrying statement alone', async () => {
    const db = fakeDatabase((text) => (text.includes('INSERT bad') ? 'refused' : undefined));
    const carried = createCarriedWrites<string>({ send: db.answer, rolledBack: (error) => (error as { refused: boolean }).refused, waitMs: 1_000 });
    const writes = Promise.allSettled([carried.add('INSERT a'), carried.add('INSERT bad'), carried.add('INSERT c')]);
    const result = await carried.carry('UPDATE final', db.answer, async () => { db.sent.push('UPDATE final alone'); return 'alone'; });
    expect((await writes).map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(result).toBe('alone');
    expect(db.sent).toEqual(['INSERT a;\nINSERT bad;\nINSERT c;\nUPDATE final;', 'INSERT a;', 'INSERT bad;', 'INSERT c;', 'UPDATE final alone']);
  });

  it('when the connection is lost (nobody knows what committed): every write and the statement fail with its error', async () => {
    const db = fakeDatabase(() => 'lost');
    const carried = createCarriedWrites<string>({ send: db.answer, rolledBack: (error) => (error as { refused: boolean }).refused, waitMs: 1_000 });
    const write = carried.add('INSERT a');
    const writeLost = expect(write).rejects.toThrow('lost');
    await expect(carried.carry('UPDATE final', db.answer, () => Promise.resolve('alone'))).rejects.toThrow('lost');
    await writeLost;
    expect(db.sent).toHaveLength(1);
  });

  it('a statement it cannot write as text goes after the writes waiting, sent on their own', async () => {
    const db = fakeDatabase();
    const carried = createCarriedWrites<string>({ send: db.answer, rolledBack: () => true, waitMs: 1_000 });
    const write = carried.add('INSERT a');
    const result = await carried.carry(undefined, db.answer, async () => { db.sent.push('SELECT with an array'); return 'alone'; });
    await write;
    expect(db.sent).toEqual(['INSERT a;', 'SELECT with an array']);
    expect(result).toBe('alone');
  });
});
