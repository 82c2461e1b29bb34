/**
 * The scenario file's schema, written once (issue 28 item 1): `schemas/scenario.schema.json` is
 * exactly what the zod schema the runner validates with generates, `docs/scenarios/conformance.json`
 * exactly the conformance plan in the scenario vocabulary (item 5), and every example scenario in
 * docs/ (the files under docs/scenarios/ and every ```json block of a page that holds a scenario)
 * passes the runner's own check. `node scripts/scenario-schema.mjs` rewrites the generated files.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ScenarioFile, scenarioJsonSchema } from '../../../electron/contract/schemas/scenario';
import { conformanceScenario, parseScenario } from '../../../electron/core/scenario';
import { planCases } from '../../../electron/core/conformance';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const read = (rel: string) => readFileSync(path.join(ROOT, rel), 'utf8');
const asFile = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** Every markdown page of docs/ and the README, with its ```json blocks that are scenarios. */
function markdownExamples(): Array<[string, string]> {
  const pages = [
    'README.md',
    ...readdirSync(path.join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  return pages.flatMap((page) =>
    [...read(page).matchAll(/```json\n([\s\S]*?)```/g)]
      .map((m) => m[1]!)
      .filter((block) => /"steps"\s*:/.test(block) && /"version"\s*:/.test(block))
      .map((block, i): [string, string] => [`${page} block ${i + 1}`, block]),
  );
}

describe('the scenario schema', () => {
  it('schemas/scenario.schema.json is what the zod schema generates', () => {
    expect(read('schemas/scenario.schema.json')).toBe(asFile(scenarioJsonSchema()));
  });

  it('the generated schema says what the zod schema says: closed objects, the step kinds, the flaws', () => {
    const schema = scenarioJsonSchema() as {
      additionalProperties: boolean;
      required: string[];
      properties: { steps: { items: { oneOf: Array<{ properties: { kind: { const: string } } }> } } };
    };
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toEqual(expect.arrayContaining(['version', 'name', 'steps']));
    expect(schema.properties.steps.items.oneOf.map((s) => s.properties.kind.const)).toEqual([
      'sign-in',
      'callback',
      'notification',
    ]);
    expect(JSON.stringify(schema)).toContain('"hs256-public-key"');
  });

  it('docs/scenarios/conformance.json is the conformance plan, one step per case', () => {
    expect(read('docs/scenarios/conformance.json')).toBe(asFile(conformanceScenario()));
    const steps = conformanceScenario().steps;
    expect(steps.map((s) => s.name)).toEqual(planCases(10).map((c) => c.id.replace(/\./g, '-')));
    expect(steps.find((s) => s.name === 'key-alg-none')).toMatchObject({
      kind: 'callback',
      route: 'key',
      token: 'alg-none',
    });
  });

  const files = readdirSync(path.join(ROOT, 'docs/scenarios')).filter((f) => f.endsWith('.json'));
  const examples: Array<[string, string]> = [
    ...files.map((f): [string, string] => [`docs/scenarios/${f}`, read(`docs/scenarios/${f}`)]),
    ...markdownExamples(),
  ];

  it('docs/ has example scenarios, in files and in the pages', () => {
    expect(files.length).toBeGreaterThanOrEqual(2);
    expect(markdownExamples().length).toBeGreaterThanOrEqual(1);
  });

  it.each(examples)('%s validates', (where, text) => {
    const scenario = parseScenario(text, where);
    expect(ScenarioFile.safeParse(JSON.parse(text)).success).toBe(true);
    expect(scenario.steps.length).toBeGreaterThan(0);
  });

  it('a broken example would be caught, naming the step and the field', () => {
    const [, text] = examples[0]!;
    const value = JSON.parse(text) as { steps: Array<Record<string, unknown>> };
    value.steps[0]!.kind = 'sign-on';
    expect(() => parseScenario(JSON.stringify(value), 'x.json')).toThrow(
      /x\.json: step "[^"]+" \(steps\[0\]\)/,
    );
  });
});
