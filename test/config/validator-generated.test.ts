import fs from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { configValidatorSource } from '../../scripts/config-validator-source.js';

describe('the precompiled config validator', () => {
  it('is what scripts/gen-config-validator.ts writes for config.schema.json (npm run build regenerates it)', () => {
    expect(fs.readFileSync('source/config/config-validator.generated.ts', 'utf8') === configValidatorSource()).toBe(true);
  });

  it('has every validator function in parentheses, so V8 compiles it at load and the compile cache keeps it (about 12 ms of every CLI start)', () => {
    const source = fs.readFileSync('source/config/config-validator.generated.ts', 'utf8');
    const file = ts.createSourceFile('validator.ts', source, ts.ScriptTarget.Latest);
    expect(file.statements.filter(ts.isFunctionDeclaration).map((statement) => statement.name?.text)).toEqual([]);
    const eager = file.statements.filter(ts.isVariableStatement).flatMap((statement) => statement.declarationList.declarations)
      .filter((declaration) => declaration.initializer && ts.isParenthesizedExpression(declaration.initializer) && ts.isFunctionExpression(declaration.initializer.expression));
    expect(eager.map((declaration) => declaration.name.getText(file)).sort()).toEqual(['validate20', 'validate21', 'validate22', 'validate23']);
  });
});
