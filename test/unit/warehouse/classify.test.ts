import { describe, expect, it } from 'vitest';
import { classifyFilesError } from '../../../connectors/files/errors.js';
import { classifyPostgresError } from '../../../connectors/postgres/errors.js';

const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('PostgreSQL failures are classified', () => {
  it.each([
    ['57P01', 'terminating connection due to administrator command'],
    ['57P03', 'the database system is starting up'],
    ['40P01', 'deadlock detected'],
    ['40001', 'could not serialize access'],
    ['08006', 'connection failure'],
    ['53300', 'too many connections'],
    ['55P03', 'lock not available'],
  ])('SQLSTATE %s (%s) is transient', (code, message) => {
    expect(classifyPostgresError(pgError(code, message)).transient).toBe(true);
  });

  it.each([
    ['28P01', /authentication failed/],
    ['3D000', /database .* does not exist/],
    ['42501', /lacks a privilege/],
    ['42P01', /schema does not match/],
    ['22P02', /refused by the destination/],
  ])('SQLSTATE %s is terminal and says what to fix', (code, hint) => {
    const classified = classifyPostgresError(pgError(code));
    expect(classified.transient).toBe(false);
    expect(classified.message).toMatch(hint);
  });

  it('a refused or dropped connection is transient', () => {
    expect(classifyPostgresError(pgError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5')).transient).toBe(true);
    expect(classifyPostgresError(new Error('Connection terminated unexpectedly')).transient).toBe(true);
  });

  it('an unknown host is terminal', () => {
    expect(classifyPostgresError(pgError('ENOTFOUND', 'getaddrinfo ENOTFOUND nohost')).transient).toBe(false);
  });
});

describe('file-system failures are classified', () => {
  it('a full disk or missing permission stops with the reason; a busy file is retried', () => {
    expect(classifyFilesError(pgError('ENOSPC')).message).toMatch(/disk is full/);
    expect(classifyFilesError(pgError('EACCES')).transient).toBe(false);
    expect(classifyFilesError(pgError('EBUSY')).transient).toBe(true);
  });
});
