import fs from 'node:fs';
import type { TestProject } from 'vitest/node';
import { startPostgresServer } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's PostgreSQL (admin URL), or '' when no test file of the run uses one. */
    postgresAdminUrl: string;
  }
}

/**
 * One PostgreSQL for the whole test run (vitest globalSetup), started only when a test file of the
 * run calls usePostgres(): starting one takes seconds, a dozen files each starting their own took
 * minutes of CI. Each test still gets a database of its own (freshDatabase). Room for several cluster
 * files at once, each with three gateways of a dozen connections.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  // The run's file filters (`vitest run test/x`): internal in vitest 4; without them, every file.
  const filters = (project.vitest as unknown as { filenamePattern?: string[] }).filenamePattern;
  const { testFiles } = await project.globTestFiles(filters);
  const needed = testFiles.some((file) => fs.readFileSync(file, 'utf8').includes('usePostgres('));
  if (!needed) {
    project.provide('postgresAdminUrl', '');
    return undefined;
  }
  const server = await startPostgresServer({ maxConnections: 400 });
  project.provide('postgresAdminUrl', server.adminUrl);
  return () => server.stop();
}
