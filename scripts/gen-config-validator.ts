// Writes source/config/config-validator.generated.ts: config.schema.json compiled by Ajv ahead of
// time (standalone code), so no command compiles the schema at run time (that compile cost every
// CLI start about 150 ms). `npm run build` runs this first; test/config/validator-generated.test.ts
// fails when the committed file is not what this script writes for the schema.
// Usage: npx tsx scripts/gen-config-validator.ts [--check]
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configValidatorSource } from './config-validator-source.js';

const target = fileURLToPath(new URL('../source/config/config-validator.generated.ts', import.meta.url));
const source = configValidatorSource();
const current = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : '';
if (process.argv.includes('--check')) {
  if (current !== source) {
    console.error(`${target} is out of date with config.schema.json: run npx tsx scripts/gen-config-validator.ts`);
    process.exitCode = 1;
  }
} else if (current !== source) {
  fs.writeFileSync(target, source);
  console.error(`wrote ${target}`);
}
