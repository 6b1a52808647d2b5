import type { Config } from '../config/config.js';
import { audiencePipeline } from './audience.pipeline.js';
import { campaignCreatorsPipeline } from './campaign-creators.pipeline.js';
import { campaignMetricsPipeline } from './campaign-metrics.pipeline.js';
import { campaignsPipeline } from './campaigns.pipeline.js';
import { creatorContactsPipeline } from './creator-contacts.pipeline.js';
import { creatorsPipeline } from './creators.pipeline.js';
import { demoPipeline } from './demo.pipeline.js';
import type { EntityName } from './entities/entity.js';
import { UnknownPipelineError } from './engine/errors.js';
import type { PipelineDefinition } from './engine/pipeline.js';
import { followerHistoryPipeline } from './follower-history.pipeline.js';
import { followerSamplesPipeline } from './follower-samples.pipeline.js';
import { linkedAccountsPipeline } from './linked-accounts.pipeline.js';
import { postsPipeline } from './posts.pipeline.js';
import { configuredPipelines } from './sources/config/configured-pipelines.js';

/**
 * Every declared pipeline, explicitly (no discovery by file name). Order matters
 * for a scheduler tick: creators before the rows that refer to them.
 */
export const PIPELINES: readonly PipelineDefinition[] = [
  creatorsPipeline,
  campaignsPipeline,
  followerHistoryPipeline,
  postsPipeline,
  creatorContactsPipeline,
  linkedAccountsPipeline,
  audiencePipeline,
  campaignCreatorsPipeline,
  campaignMetricsPipeline,
  followerSamplesPipeline,
  demoPipeline,
];

/**
 * The built-in pipelines and, when `config` names a sources file (`CDS_SOURCES`),
 * one pipeline per configured source, named as in the file. Read on each call,
 * so `cds sources` sees an edited file; the scheduler reads it at start.
 */
export function allPipelines(config?: Readonly<Config>): readonly PipelineDefinition[] {
  if (!config?.sourcesPath) return PIPELINES;
  return [
    ...PIPELINES,
    ...configuredPipelines(
      config,
      PIPELINES.map((p) => p.name),
    ),
  ];
}

/** A pipeline by name, the configured sources included when `config` is given. */
export function getPipeline(name: string, config?: Readonly<Config>): PipelineDefinition {
  const all = allPipelines(config);
  const found = all.find((p) => p.name === name);
  if (!found) throw new UnknownPipelineError(`unknown pipeline ${name}; known: ${all.map((p) => p.name).join(', ')}`);
  return found;
}

/** The pipeline that loads an entity's files (what `cds ingest` uses). */
export function pipelineForEntity(entity: EntityName): PipelineDefinition {
  const found = PIPELINES.find((p) => p.entity === entity);
  if (!found) throw new UnknownPipelineError(`no pipeline loads ${entity}`);
  return found;
}
