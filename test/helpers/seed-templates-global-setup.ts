import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** This run's folder of seeded demo stores (test/helpers/seed-templates.ts); every project of the run shares it. */
    seedTemplatesDir: string;
  }
}

const RUN = globalThis as { cdsSeedTemplatesDir?: string };

/** A folder for this run's seeded demo stores, made by the first project's setup and removed when the run ends. */
export function setup(project: TestProject): void {
  RUN.cdsSeedTemplatesDir ??= mkdtempSync(join(tmpdir(), 'cds-seed-templates-'));
  project.provide('seedTemplatesDir', RUN.cdsSeedTemplatesDir);
}

export function teardown(): void {
  if (RUN.cdsSeedTemplatesDir) rmSync(RUN.cdsSeedTemplatesDir, { recursive: true, force: true });
}
