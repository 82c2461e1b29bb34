/**
 * The built-in conformance cases in the scenario vocabulary (issue 28 item 5), so a team can copy
 * a case into its own scenario and change it. Made from the suite's own plan
 * (conformance/plan.ts), so the two cannot drift apart: a `valid` case is a callback with a valid
 * token, a `budget` case the same sent ten times (each judged, the 1 s budget among the checks),
 * the rotation case a `rotated` token, each negative case a callback with that flaw, expected to
 * be refused. `docs/scenarios/conformance.json` is this file, kept current by a test.
 */
import {
  SCENARIO_SCHEMA_ID,
  SCENARIO_VERSION,
  type ScenarioFileInput,
} from '../../contract/schemas/scenario';
import { planCases } from '../conformance';

/** The budget cases' calls per route (the suite's default). */
const BUDGET_CALLS = 10;

/** Step names are ids: `user_auth.alg-none` → `user_auth-alg-none`. */
const stepName = (caseId: string) => caseId.replace(/\./g, '-');

/**
 * The conformance plan as a scenario file: one step per case, named after the case id.
 *
 * @example
 * JSON.stringify(conformanceScenario(), null, 2); // docs/scenarios/conformance.json
 */
export function conformanceScenario(): ScenarioFileInput {
  const steps: ScenarioFileInput['steps'] = planCases(BUDGET_CALLS).map((c) => {
    const base = { name: stepName(c.id), kind: 'callback' as const, title: c.title, route: c.route };
    switch (c.kind) {
      case 'valid':
        return { ...base, token: 'valid' as const };
      case 'budget':
        return { ...base, token: 'valid' as const, repeat: BUDGET_CALLS };
      case 'rotation':
        return { ...base, token: 'rotated' as const };
      case 'negative':
        return { ...base, token: c.negative };
    }
  });
  return {
    $schema: SCENARIO_SCHEMA_ID,
    version: SCENARIO_VERSION,
    name: 'conformance',
    description:
      'The conformance suite’s callback cases as scenario steps (dets-console conformance runs the same plan). Copy a step into your own scenario and change it; obj and sub come from --obj/--sub or "variables".',
    steps,
  };
}
