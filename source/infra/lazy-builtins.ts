/**
 * Node's crypto and util, loaded when first used. An ESM \`import\` of a built-in module builds its
 * whole namespace, which loads every part behind its lazy getters: about 11 ms for \`node:crypto\`
 * and 7 ms for \`node:util\` on a start, paid by \`cron list\` that generates no id and reads no
 * .env (docs/perf/cli-start.md). \`process.getBuiltinModule\` returns the module as \`require\` would.
 */
export const lazyCrypto = (): typeof import('node:crypto') => process.getBuiltinModule('node:crypto');
export const lazyUtil = (): typeof import('node:util') => process.getBuiltinModule('node:util');
