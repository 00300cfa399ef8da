// Regenerates the configuration reference in README.md from config.schema.json.
// Usage: npm run docs:config   (test/docs/readme.test.ts fails when the README is stale)
import fs from 'node:fs';
import { configReference } from '../source/config/reference.js';

const start = '<!-- config-reference:start -->';
const end = '<!-- config-reference:end -->';
const schema = JSON.parse(fs.readFileSync('config.schema.json', 'utf8'));
const readme = fs.readFileSync('README.md', 'utf8');
const before = readme.slice(0, readme.indexOf(start) + start.length);
const after = readme.slice(readme.indexOf(end));
fs.writeFileSync('README.md', `${before}\n${configReference(schema)}\n${after}`);
console.log('README.md configuration reference updated');
