import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { homeLayout, type HomeLayout } from '../../source/config/home.js';

const made: string[] = [];

/** A fresh, empty $SWITCHBOARD_HOME under the OS temp folder, removed after the test. */
export function tempHome(): HomeLayout {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-test-'));
  made.push(root);
  return homeLayout(path.join(root, 'home'));
}

afterEach(() => {
  for (const root of made.splice(0)) fs.rmSync(root, { recursive: true, force: true });
});
