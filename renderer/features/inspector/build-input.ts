import { schemas } from '../../../electron/contract';
import type { InspectInput, KeySource } from '../../../electron/contract/schemas/inspector';
import type { InspectorForm } from './inspector-store';
import { analyzeTokenText } from '../../shared/token-text';

export interface BuiltInput {
  input: InspectInput;
  /** Why the chosen key source is not sent yet (e.g. a half-typed URL); null when it is. */
  keyProblem: string | null;
}

function keySource(form: InspectorForm): { source: KeySource | undefined; problem: string | null } {
  if (form.keyChoice === 'jwks-url') {
    const url = form.keyUrl.trim();
    if (url === '') return { source: undefined, problem: 'Enter the JWKS URL to check the signature.' };
    const parsed = schemas.KeySource.safeParse({ type: 'jwks-url', url });
    if (!parsed.success)
      return {
        source: undefined,
        problem: `Not an http(s) URL yet: ${parsed.error.issues[0]?.message ?? 'invalid'}.`,
      };
    return { source: parsed.data, problem: null };
  }
  if (form.keyChoice === 'text') {
    if (form.keyText.trim() === '')
      return { source: undefined, problem: 'Paste a JWKS, a JWK or a PEM public key.' };
    return { source: { type: 'text', text: form.keyText.trim() }, problem: null };
  }
  return { source: undefined, problem: null };
}

/** The exact argument of `inspector.inspect` for the current form: stripped token, optional fields left out. */
export function buildInspectInput(form: InspectorForm): BuiltInput {
  const { token } = analyzeTokenText(form.raw);
  const { source, problem } = keySource(form);
  const input: InspectInput = { token };
  if (source) input.keySource = source;
  if (form.expectedObj.trim() !== '') input.expectedObj = form.expectedObj.trim();
  if (form.expectedSub.trim() !== '') input.expectedSub = form.expectedSub.trim();
  return { input, keyProblem: problem };
}
