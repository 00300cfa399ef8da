import { createRequire } from 'node:module';

/** The package version, for --version, the control channel's hello and `status`. */
export const version = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
