#!/usr/bin/env node
// Runs the TypeScript CLI through tsx so `npx cds …` works in a checkout with no build step.
import { register } from 'tsx/esm/api';

register();
await import('../cli/cds.ts');
