import { z } from 'zod';
import {
  Recorded,
  RecordInput,
  RunScenarioInput,
  SaveScenarioInput,
  ScenarioFolder,
  ScenarioReport,
} from '../schemas/scenario';
import { method } from './method';

/** `scenario.*` methods: flows kept as files, recorded from events and replayed (issue 28). */
export const scenarioMethods = {
  'scenario.record': method({
    summary:
      'A scenario from stored events (by id) or from an environment’s walkthrough: each callback and notification a step; tokens and transaction_ids fresh on every run.',
    input: RecordInput,
    output: Recorded,
  }),
  'scenario.save': method({
    summary: 'Record as scenario.record does, and write it to folder/file (never over an existing file).',
    input: SaveScenarioInput,
    output: z.object({ path: z.string(), recorded: Recorded }),
  }),
  'scenario.list': method({
    summary:
      'The scenario files (*.json) of a folder, each checked: its name and steps, or why it cannot run.',
    input: z.object({ folder: z.string().min(1).max(4096) }).strict(),
    output: ScenarioFolder,
  }),
  'scenario.run': method({
    summary:
      'Run one scenario file against the active environment’s bank (a private instance with its customers, behaviours and forward setting, trusting the runner’s JWKS), and answer the report.',
    input: RunScenarioInput,
    output: ScenarioReport,
  }),
};
