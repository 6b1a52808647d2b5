import type { TestProject } from 'vitest/node';
import { startTestPostgres, type TestPostgres } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The suite's PostgreSQL server (cluster-mode project); each test file makes its own database on it. */
    stateDatabaseUrl: string;
  }
}

let server: TestPostgres | null = null;

/** One real PostgreSQL for the cluster-mode test project; files never share a database on it. */
export async function setup(project: TestProject): Promise<void> {
  server = await startTestPostgres();
  project.provide('stateDatabaseUrl', server.url);
}

export async function teardown(): Promise<void> {
  await server?.cleanup();
}
