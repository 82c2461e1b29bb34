import { z } from 'zod';
import {
  ConformanceExport,
  ConformanceNotifyInput,
  ConformanceProgress,
  ConformanceReport,
  ConformanceRunInput,
} from '../schemas/conformance';
import { ServiceJwksChange } from '../schemas/bank';
import { method, NoInput } from './method';

/** `conformance.*` methods and events: the bank callback conformance suite (issue 7). */
export const conformanceMethods = {
  'conformance.run': method({
    summary:
      "Run the suite against a bank's own /user_auth, /key and /external_id, playing the service with the runner's own JWKS on 127.0.0.1:<jwks_port>.",
    input: ConformanceRunInput,
    output: ConformanceReport,
  }),
  'conformance.runNotify': method({
    summary:
      'Run the notify.* cases against a bank\'s notification endpoints (notify_url + prefix + /pay-in, /pay-out, /transfer), with the probe for "applied exactly once" and the run\'s expected failures.',
    input: ConformanceNotifyInput,
    output: ConformanceReport,
  }),
  'conformance.selfCheck': method({
    summary:
      "Run the callback and the notify.* cases against a private, temporary instance of the console's own bank endpoints (never the live one): every case must pass.",
    input: NoInput,
    output: ConformanceReport,
  }),
  'conformance.trustRunnerJwks': method({
    summary:
      "Point the console's own bank endpoints at the runner's JWKS on 127.0.0.1:<jwks_port>, so a run against them is judged with the runner's keys; bank.setServiceJwksUrl with the answer's previous_setting puts it back.",
    input: z.object({ jwks_port: z.number().int().min(1).max(65535) }),
    output: ServiceJwksChange,
  }),
  'conformance.lastReport': method({
    summary: 'The last finished report of this session (null before any run).',
    input: NoInput,
    output: ConformanceReport.nullable(),
  }),
  'conformance.export': method({
    summary:
      'The last report as a file: JSON with every case’s full exchange (tokens included, no private key), or JUnit XML.',
    input: z.object({ format: z.enum(['json', 'junit']) }),
    output: ConformanceExport,
  }),
} as const;

export const conformanceEvents = {
  /** A run started, a case finished, the run finished (or could not start). */
  'conformance.progressed': ConformanceProgress,
} as const;
