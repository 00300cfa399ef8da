/**
 * The whole state schema, as numbered migrations applied in order. Each later issue appends one;
 * nothing else in the code base runs DDL.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'audit',
    sql: `
      CREATE TABLE audit (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at_ms INTEGER NOT NULL,
        source TEXT NOT NULL,
        kind TEXT NOT NULL,
        detail TEXT
      );
      CREATE INDEX audit_at ON audit (at_ms);
    `,
  },
];
