import type { Migration } from './migration.js';

/**
 * How far the outbox relay has copied the writer's events and run records into
 * PostgreSQL (cluster mode). A row per stream, written only by the relay, so it
 * never conflicts with a load touching the rows it copies.
 */
export const outboxRelay: Migration = {
  version: 50,
  name: 'outbox relay positions',
  statements: [
    `CREATE TABLE outbox_relay (
      stream VARCHAR NOT NULL PRIMARY KEY,
      position BIGINT NOT NULL,
      updated_at TIMESTAMP NOT NULL
    )`,
  ],
};
