/**
 * What the CLI tests of `conformance` and `scenario run` share (review: each repeated these
 * blocks): the one JSON report a `--json` run prints last on stdout, and a test bank that trusts
 * the runner's JWKS on a free port (what `--jwks-port` then gives the CLI).
 */
import {
  startTestBank,
  type Faults,
  type TestBank,
  type TestCustomer,
} from '../../core/conformance/broken-bank';
import { freePort } from '../../support/free-port';

/** The `conformance --json` object (DESIGN.md "Command line"). */
export interface CliReport {
  passed: number;
  failed: number;
  cases: Array<{ id: string; title: string; status: string; detail: string }>;
}

/**
 * The JSON object a `--json` run prints last on stdout (after its ready line, when it has one).
 *
 * @example
 * const report = jsonReport(run.stdout); // { passed, failed, cases }
 */
export function jsonReport<T = CliReport>(stdout: string): T {
  const lines = stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]!) as T;
}

/** A test bank for `customer` (with planted `faults`) trusting the runner's JWKS on `jwksPort`. */
export async function startRunnerBank(
  customer: TestCustomer,
  faults: Faults = {},
): Promise<{ bank: TestBank; jwksPort: number }> {
  const jwksPort = await freePort();
  const jwksUrl = `http://127.0.0.1:${jwksPort}/api/v1/.well-known/jwks.json`;
  return { bank: await startTestBank({ jwksUrl, customer, faults }), jwksPort };
}
