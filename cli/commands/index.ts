import type { CliCommand } from '../command.js';
import { accountCommands } from './accounts.commands.js';
import { exportCommand } from './export.commands.js';
import { keysCreateCommand, keysListCommand, keysRevokeCommand } from './keys.commands.js';
import { modelCommands } from './model.commands.js';
import { pipelineCommands } from './pipelines.commands.js';
import { planCommands } from './plans.commands.js';
import { pricingCommands } from './pricing.commands.js';
import { seedCommand } from './seed.commands.js';
import { sourceCommands } from './sources.commands.js';
import { startCommand } from './start.command.js';
import { storeCommands } from './store.commands.js';
import { syncCommands } from './sync.commands.js';

/** Every `cds` command. Add a feature's commands here. */
export const COMMANDS: readonly CliCommand[] = [
  startCommand,
  seedCommand,
  keysCreateCommand,
  keysListCommand,
  keysRevokeCommand,
  ...planCommands,
  ...accountCommands,
  ...syncCommands,
  ...pipelineCommands,
  ...sourceCommands,
  exportCommand,
  ...modelCommands,
  ...pricingCommands,
  ...storeCommands,
];
