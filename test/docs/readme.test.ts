import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configReference } from '../../source/config/reference.js';

const readme = fs.readFileSync('README.md', 'utf8');
const packageJson = JSON.parse(fs.readFileSync('package.json', 'utf8'));

describe('README', () => {
  it('carries the configuration reference generated from config.schema.json (run: npm run docs:config)', () => {
    const schema = JSON.parse(fs.readFileSync('config.schema.json', 'utf8'));
    const section = readme.split('<!-- config-reference:start -->')[1]!.split('<!-- config-reference:end -->')[0]!.trim();
    expect(section).toBe(configReference(schema));
  });

  it('quick start is exactly the two commands, and CI runs the README test line', () => {
    const quickStart = readme.split('## Quick start')[1]!.split('##')[0]!;
    const commands = [...quickStart.matchAll(/^npm .*$/gm)].map((match) => match[0]);
    expect(commands).toEqual(['npm install && npm start', 'npm install && npm test']);
    expect(fs.readFileSync('.ci/run', 'utf8')).toContain('npm install && npm test');
  });

  it('pins Node 22 for every npm script', () => {
    expect(packageJson.devDependencies.node).toMatch(/^\^?22\./);
    expect(packageJson.engines.node).toBe('>=22.13');
    expect(process.versions.node.split('.')[0]).toBe('22');
  });
});
