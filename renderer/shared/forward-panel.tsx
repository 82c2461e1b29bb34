import { useState } from 'react';
import { fieldOfError } from './field-errors';
import { Field } from './field';
import { useSetForward } from '../data/bank';
import { Allowed } from './allowed';

function urlProblem(v: string): string | undefined {
  if (!v.trim()) return 'enter your backend’s URL';
  try {
    const u = new URL(v.trim());
    return u.protocol === 'http:' || u.protocol === 'https:' ? undefined : 'must be an http(s) URL';
  } catch {
    return 'must be an http(s) URL';
  }
}

/** Forward mode: the console passes callbacks and notifications on to the engineer's backend and judges its answers. */
export function ForwardPanel({ url }: { url: string | null }) {
  const [text, setText] = useState(url ?? '');
  const [touched, setTouched] = useState(false);
  const set = useSetForward();
  const on = url !== null;
  const problem = touched ? urlProblem(text) : undefined;
  const refused = set.error ? fieldOfError(set.error, ['url'] as const).message : undefined;
  return (
    <section
      className="panel"
      aria-labelledby="forward-title"
      data-testid="bank-forward"
      data-on={String(on)}
    >
      <h2 id="forward-title" className="panel-title">
        Forward mode
        <span className={`badge ${on ? 'badge-accent' : 'badge-skip'}`} data-testid="forward-state">
          {on ? 'on' : 'off'}
        </span>
      </h2>
      <div className="panel-body">
        <p className="muted">
          On: every callback and notification that reaches the console is passed on to your own backend, and
          its answer is judged as the service would, by the same judge as every answer (an answer within the 1
          s budget, 200 with the route’s members for a valid token, 401 for a token that fails). The service
          still gets your backend’s answer; the checks show in each callback’s detail, and a failed one is the
          callback’s verdict.
        </p>
        <Field id="forward-url" label="Your backend URL" error={problem ?? refused}>
          <input
            id="forward-url"
            className="input"
            type="url"
            value={text}
            placeholder="http://127.0.0.1:8080"
            onChange={(e) => {
              setText(e.target.value);
              setTouched(true);
              set.reset();
            }}
            aria-describedby="forward-url-note"
            data-testid="forward-url"
            spellCheck={false}
          />
        </Field>
        <Allowed method="bank.setForward">
          <div className="form-actions">
            {on ? (
              <button
                type="button"
                className="btn"
                onClick={() => set.mutate({ url: null })}
                disabled={set.isPending}
                data-testid="forward-off"
              >
                Turn off
              </button>
            ) : null}
            <button
              type="button"
              className="btn btn-primary"
              disabled={set.isPending || urlProblem(text) !== undefined || (on && text.trim() === url)}
              onClick={() => set.mutate({ url: text.trim() })}
              data-testid="forward-on"
            >
              {on ? 'Change URL' : 'Turn on'}
            </button>
          </div>
        </Allowed>
      </div>
    </section>
  );
}
