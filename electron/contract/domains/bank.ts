import { z } from 'zod';
import {
  BankStatus,
  Behaviours,
  Customer,
  CustomersWithKeysInput,
  CustomerView,
  ForwardSettings,
  FreshSession,
  PreparedDownload,
  ServiceJwksChange,
  ServiceJwksSetting,
} from '../schemas/bank';
import { EventDetail } from '../schemas/events';
import { method, NoInput } from './method';

/** `bank.*` methods: the embedded bank endpoints (issue 5, DESIGN.md "Bank endpoints"). */
export const bankMethods = {
  'bank.status': method({
    summary:
      'The bank endpoints: URL, notification prefix, service JWKS state, customers, behaviours, forward mode.',
    input: NoInput,
    output: BankStatus,
  }),
  'bank.customers': method({
    summary: 'The test customers (secret keys masked).',
    input: NoInput,
    output: z.array(CustomerView),
  }),
  'bank.saveCustomer': method({
    summary:
      'Add or replace a test customer (by obj); external_id up to 500 symbols; external_id, phone and key required.',
    input: Customer,
    output: CustomerView,
  }),
  'bank.removeCustomer': method({
    summary: 'Remove a test customer by obj.',
    input: z.object({ obj: z.string().min(1).max(200) }),
    output: z.object({ removed: z.string() }),
  }),
  'bank.importCustomers': method({
    summary:
      'Replace the customers with a --users file (JSON array), validated whole before anything changes.',
    input: z.object({
      text: z
        .string()
        .min(1)
        .max(16 * 1024 * 1024),
    }),
    output: z.object({ imported: z.number().int() }),
  }),
  'bank.exportCustomers': method({
    summary:
      'The customers in the --users file format WITHOUT their secret keys (the page never receives one); ' +
      'a file with the keys is bank.exportCustomersWithKeys.',
    input: NoInput,
    output: z.object({ text: z.string(), filename: z.string() }),
  }),
  'bank.exportCustomersWithKeys': method({
    summary:
      'Prepare the --users file WITH the secret keys as a one-time download the host serves ' +
      '(browser mode: GET /api/download/<ticket>); the keys never appear in an answer the page reads.',
    input: CustomersWithKeysInput,
    output: PreparedDownload,
  }),
  'bank.setBehaviours': method({
    summary: 'Deliberate misbehaviour per route (delay, fixed status, omitted field, over-long external_id).',
    input: Behaviours,
    output: Behaviours,
  }),
  'bank.setForward': method({
    summary:
      "Forward callbacks and notifications to the engineer's own backend and judge its answers (null url: off).",
    input: ForwardSettings,
    output: ForwardSettings,
  }),
  'bank.setNotifyPrefix': method({
    summary:
      'Where notifications are received under the bank URL: /api/svc/notify (spec 4.3, the default) or another path such as /api/dcm/notify (the service guide).',
    input: z.object({ prefix: z.string().min(1).max(200) }),
    output: z.object({ notify_path_prefix: z.string() }),
  }),
  'bank.setServiceJwksUrl': method({
    summary:
      "The bank's own service JWKS URL, in force before --service-jwks-url and the active environment's (null: follow them again); answers what it was and what it is, so the change can be put back.",
    input: ServiceJwksSetting,
    output: ServiceJwksChange,
  }),
  'bank.recheck': method({
    summary: "Run a stored callback's X-Session-ID checks again with the current JWKS.",
    input: z.object({ id: z.string().min(1).max(100) }),
    output: EventDetail,
  }),
  'bank.replay': method({
    summary: 'Replay a stored callback with a fresh token (same obj/sub, new iat/exp) signed by the sandbox.',
    input: z.object({ id: z.string().min(1).max(100) }),
    output: EventDetail,
  }),
  'bank.freshSession': method({
    summary:
      "A fresh X-Session-ID for a stored sandbox callback (same flow, obj and sub; new iat and exp), signed with the sandbox's key, for a copied curl that outlives the recorded token.",
    input: z.object({ id: z.string().min(1).max(100) }),
    output: FreshSession,
  }),
} as const;

/** `bank.*` events. */
export const bankEvents = {
  /** Customers, behaviours, forward mode or the JWKS state changed. */
  'bank.changed': BankStatus,
} as const;
