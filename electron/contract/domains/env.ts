import { z } from 'zod';
import { Environment, Environments, SaveEnvironmentInput } from '../schemas/service';
import { method, NoInput } from './method';

/** `env.*` methods: the sandbox and real environments. */
export const envMethods = {
  'env.list': method({
    summary: 'The environments and which one is active.',
    input: NoInput,
    output: Environments,
  }),
  'env.save': method({
    summary: 'Create (no id) or update an environment; URLs and GUIDs are validated.',
    input: SaveEnvironmentInput,
    output: Environment,
  }),
  'env.remove': method({
    summary: 'Remove a real environment (the sandbox stays).',
    input: z.object({ id: z.string().min(1) }),
    output: Environments,
  }),
  'env.activate': method({
    summary: 'Switch the active environment.',
    input: z.object({ id: z.string().min(1) }),
    output: Environments,
  }),
} as const;

/** `env.*` events. */
export const envEvents = {
  'env.changed': Environments,
} as const;
