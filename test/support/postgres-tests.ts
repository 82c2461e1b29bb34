/** A PostgreSQL 15 cluster per test file (postgres.ts), for the files that need one. */
import { afterAll, beforeAll } from 'vitest';
import { startPostgres, type TestPostgres } from './postgres';

/**
 * One cluster for a test file (or describe block): started before its tests, stopped (by its
 * PID) after them. Answers the running cluster.
 *
 * @example
 * const cluster = postgresForTests(); … const url = await cluster().database('t1');
 */
export function postgresForTests(): () => TestPostgres {
  let cluster: TestPostgres | undefined;
  beforeAll(async () => {
    cluster = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
  });
  return () => {
    if (!cluster) throw new Error('the PostgreSQL cluster has not started');
    return cluster;
  };
}
