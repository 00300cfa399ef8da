import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configValidatorSource } from '../../scripts/config-validator-source.js';

describe('the precompiled config validator', () => {
  it('is what scripts/gen-config-validator.ts writes for config.schema.json (npm run build regenerates it)', () => {
    expect(fs.readFileSync('source/config/config-validator.generated.ts', 'utf8') === configValidatorSource()).toBe(true);
  });
});
