import { useEffect, useRef, useState } from 'react';
import type {
  StepId,
  WalkthroughState,
  WalkthroughStep,
} from '../../../electron/contract/schemas/walkthrough';
import { ErrorPanel } from '../../shared/error-panel';
import { TeamHubPanel } from '../../shared/team-hub';
import { Page } from '../../ui/page';
import { useKeys } from '../../data/keys';
import { StepCard, type StepMessage, type StepRun, type StepTurn } from './step-card';
import { useWalkthroughUi } from './walkthrough-store';

const NO_MESSAGES: Partial<Record<StepId, StepMessage>> = {};
import {
  useExportPack,
  useResetWalkthrough,
  useRunStep,
  useWalkthrough,
  useWalkthroughLiveUpdates,
} from '../../data/walkthrough';
import './walkthrough.css';
import { Allowed } from '../../shared/allowed';

/**
 * The home page of a new profile (issue 6): the registration flow of spec 4.4 and the work
 * around it in eight steps, each with what the service expects and why, its state derived in
 * the core from real events (never a checkbox), and one action. Against the sandbox every
 * action works with no typing; against a real environment the steps that depend on the
 * service say what the console is waiting for.
 */
export function WalkthroughPage() {
  useWalkthroughLiveUpdates();
  const walkthrough = useWalkthrough();
  const keys = useKeys();
  const run = useRunStep();
  const reset = useResetWalkthrough();
  const exportPack = useExportPack();
  const envId = walkthrough.data?.environment.id ?? '';
  const messages = useWalkthroughUi((s) => s.messages[envId]) ?? NO_MESSAGES;
  const setMessage = useWalkthroughUi((s) => s.setMessage);
  const clearMessages = useWalkthroughUi((s) => s.clear);
  const [running, setRunning] = useState<StepId | null>(null);
  const state = walkthrough.data;
  const pageState = walkthrough.error ? 'error' : state ? 'ready' : 'loading';
  const activeKey = keys.data?.find((k) => k.kid === state?.environment.active_kid) ?? null;
  useNextStepFocus(state);

  const runStep = (step: StepId, input: StepRun) => {
    const target = state?.steps.find((s) => s.id === step);
    const extra =
      target?.action_input === 'counterparty_guid' && input.value
        ? { counterparty_guid: input.value }
        : target?.action_input === 'bank_url' && input.value
          ? { bank_url: input.value }
          : input.rehearse
            ? { rehearse_retry: true }
            : {};
    setRunning(step);
    run.mutate(
      { step, ...extra },
      {
        onSuccess: (result) =>
          setMessage(result.state.environment.id, step, {
            ok: result.ok,
            text: result.message,
            summary: result.state.steps.find((s) => s.id === step)?.summary ?? '',
          }),
        onError: (err) =>
          setMessage(envId, step, { ok: false, text: err.message, summary: target?.summary ?? '' }),
        onSettled: () => setRunning(null),
      },
    );
  };

  return (
    <Page
      className="walkthrough"
      testId="walkthrough-page"
      state={pageState}
      title="Walkthrough"
      actions={
        <WalkthroughActions
          state={state}
          exportPack={exportPack}
          onReset={() => {
            clearMessages(envId);
            reset.mutate();
          }}
        />
      }
      intro="From an empty profile to a verified registration flow (spec 4.4). Each step turns green only when the event that proves it exists; a failed step says why and what to do."
    >
      <TeamHubPanel />
      {walkthrough.error ? (
        <ErrorPanel
          title="The walkthrough is not available"
          error={walkthrough.error}
          testId="walkthrough-error"
        />
      ) : null}
      {exportPack.error ? (
        <ErrorPanel
          title="The evidence pack could not be made"
          error={exportPack.error}
          testId="export-error"
        />
      ) : null}

      {state ? (
        <>
          <WalkthroughProgress state={state} />
          <ol className="wt-steps" data-testid="walkthrough-steps">
            {state.steps.map((step) => (
              <StepCard
                key={`${state.environment.id}-${step.id}`}
                step={step}
                state={state}
                activeKey={activeKey}
                busy={running !== null}
                running={running === step.id}
                message={messages[step.id] ?? null}
                turn={turnOf(state, step)}
                onRun={(input) => runStep(step.id, input)}
              />
            ))}
          </ol>
        </>
      ) : pageState === 'loading' ? (
        <p className="muted">Loading the walkthrough…</p>
      ) : null}
    </Page>
  );
}

/** The first step not done: the one to do next. */
function nextStep(state: WalkthroughState): WalkthroughStep | null {
  return state.steps.find((s) => s.state !== 'done') ?? null;
}

/**
 * Only the next step's button is primary; a step whose earlier step is not done says which one
 * it needs and waits (issue 13 item 4). Done steps can run again (a new key, a new sign-in).
 */
export function turnOf(state: WalkthroughState, step: WalkthroughStep): StepTurn {
  const next = nextStep(state)?.id === step.id;
  const needs = step.state === 'done' || !step.needs ? null : state.steps.find((s) => s.id === step.needs);
  return {
    next,
    blockedBy: needs ? `Needs step ${needs.number} first: ${needs.title.toLowerCase()}.` : null,
  };
}

/**
 * When a step turns green, the next one comes into view and its action takes the focus (steps
 * 4–8 are below the fold on a laptop screen).
 */
function useNextStepFocus(state: WalkthroughState | undefined): void {
  const done = useRef<Set<StepId> | null>(null);
  const frame = useRef(0);
  // Stop looking on unmount only: a state refetch meanwhile must not lose the pending focus.
  useEffect(() => () => cancelAnimationFrame(frame.current), []);
  useEffect(() => {
    if (!state) return;
    const now = new Set(state.steps.filter((s) => s.state === 'done').map((s) => s.id));
    const before = done.current;
    done.current = now;
    if (!before || ![...now].some((id) => !before.has(id))) return;
    const next = nextStep(state);
    if (!next) return;
    const card = document.querySelector<HTMLElement>(`[data-testid="step-${next.id}"]`);
    card?.scrollIntoView?.({ block: 'center', behavior: 'smooth' });
    card?.focus({ preventScroll: true });
    // The action takes the focus as soon as it is enabled (the run that proved the step may still
    // be settling); at most ~3 s of frames, and not if the person moved the focus meanwhile.
    cancelAnimationFrame(frame.current);
    let frames = 180;
    const tryFocus = () => {
      const button = document.querySelector<HTMLButtonElement>(`[data-testid="step-action-${next.id}"]`);
      const active = document.activeElement;
      if (active !== card && active !== document.body && active !== null && active !== button) return;
      if (button && !button.disabled) button.focus({ preventScroll: true });
      else if (frames-- > 0) frame.current = requestAnimationFrame(tryFocus);
    };
    tryFocus();
  }, [state]);
}

/** Reset (after a confirmation) and the evidence pack's export. */
function WalkthroughActions({
  state,
  onReset,
  exportPack,
}: {
  state: WalkthroughState | undefined;
  onReset: () => void;
  exportPack: ReturnType<typeof useExportPack>;
}) {
  const [confirmReset, setConfirmReset] = useState(false);
  return (
    <>
      {confirmReset ? (
        <>
          <span className="muted">Ignore everything before now for {state?.environment.name}?</span>
          <button
            type="button"
            className="btn btn-small btn-danger"
            onClick={() => {
              setConfirmReset(false);
              onReset();
            }}
            data-testid="walkthrough-reset-confirm"
          >
            Reset
          </button>
          <button type="button" className="btn btn-small" onClick={() => setConfirmReset(false)}>
            Cancel
          </button>
        </>
      ) : (
        <Allowed method="walkthrough.reset">
          <button
            type="button"
            className="btn btn-small"
            onClick={() => setConfirmReset(true)}
            disabled={!state}
            data-testid="walkthrough-reset"
          >
            Reset…
          </button>
        </Allowed>
      )}
      <button
        type="button"
        className="btn btn-small"
        onClick={() => exportPack.mutate()}
        disabled={!state || exportPack.isPending}
        data-testid="walkthrough-export"
      >
        {exportPack.isPending ? 'Exporting…' : 'Export evidence pack'}
      </button>{' '}
    </>
  );
}

/** How many steps are done, against what, and the banner once every step is proven. */
function WalkthroughProgress({ state }: { state: WalkthroughState }) {
  return (
    <div className="wt-progress" data-testid="walkthrough-progress" data-done={state.done}>
      <div className="wt-progress-line">
        <strong>
          {state.done} of {state.total} steps done
        </strong>
        <span className="muted">
          {' '}
          ·{' '}
          {state.environment.kind === 'sandbox'
            ? 'the built-in sandbox'
            : `environment ${state.environment.name}`}
          {state.environment.base_url ? ` at ${state.environment.base_url}` : ''}
          {state.reset_at ? ` · reset ${new Date(state.reset_at).toLocaleString()}` : ''}
        </span>
      </div>
      <div
        className="wt-bar"
        role="progressbar"
        aria-valuemin={0}
        aria-valuemax={state.total}
        aria-valuenow={state.done}
        aria-label="Steps done"
      >
        <div className="wt-bar-fill" style={{ width: `${(100 * state.done) / state.total}%` }} />
      </div>
      {state.done === state.total ? (
        <p className="banner banner-pass wt-complete" data-testid="walkthrough-complete">
          {/* Issue 26 item 5: the banner fits the environment it is shown for. */}
          {state.environment.kind === 'sandbox'
            ? 'Every step is proven. Export the evidence pack for the onboarding sign-off, then repeat the walkthrough against a real environment (switch it in the header).'
            : `Every step is proven against ${state.environment.name}. Export the evidence pack and send it with the onboarding sign-off to the service team.`}
        </p>
      ) : null}
    </div>
  );
}
