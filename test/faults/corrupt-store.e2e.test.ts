import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { preparedHome } from '../helpers/host.js';

describe('a corrupt state.db', () => {
  it('ends in one message naming the file, what is wrong and what to do, exit 1, for the gateway and the CLI', async () => {
    const home = preparedHome();
    fs.writeFileSync(home.stateDb, 'this is not a SQLite database, it was overwritten by something else '.repeat(100));
    for (const args of [['gateway'], ['cron', 'list'], ['approvals', 'list']]) {
      const result = await runCli([...args, '--home', home.root]);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr).toContain(`error: ${home.stateDb} is not a usable SQLite database (file is not a database)`);
      expect(result.stderr).toContain(`Move it aside (mv ${home.stateDb} ${home.stateDb}.corrupt-`);
      expect(result.stderr).not.toMatch(/^\s+at /m);
    }
  });
});
