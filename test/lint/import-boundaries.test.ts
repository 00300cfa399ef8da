import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: process.cwd() });

async function restrictedImportMessages(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter((message) => message.ruleId === 'no-restricted-imports').map((message) => message.message);
}

describe('import boundaries (STYLE.md section 1)', () => {
  it.each([
    ["import { render } from 'ink';", 'source/gateway/x.ts'],
    ["import React from 'react';", 'source/webhooks/x.ts'],
    ["import TextInput from 'ink-text-input';", 'source/cli/x.ts'],
    ["import { jsx } from 'react/jsx-runtime';", 'source/infra/x.ts'],
  ])('rejects %s outside source/ui (%s)', async (code, filePath) => {
    const messages = await restrictedImportMessages(code, filePath);
    expect(messages).toEqual([expect.stringContaining('Only source/ui/ may import ink, react or ink-text-input')]);
  });

  it('allows the UI stack inside source/ui', async () => {
    expect(await restrictedImportMessages("import { render } from 'ink';\nimport React from 'react';\nvoid render; void React;", 'source/ui/App.tsx')).toEqual([]);
  });

  it('keeps execa, clipboardy and conf inside source/infra', async () => {
    expect(await restrictedImportMessages("import { execa } from 'execa';\nvoid execa;", 'source/agent/x.ts')).toEqual([
      expect.stringContaining('Only source/infra/ may import execa, clipboardy or conf'),
    ]);
    expect(await restrictedImportMessages("import { execa } from 'execa';\nvoid execa;", 'source/infra/x.ts')).toEqual([]);
  });
});
