import { useState } from 'react';
import { useSaveScenario, useScenarioFolder } from '../data/scenarios';
import { useMayCall } from '../data/app';
import { Dialog } from '../ui/dialog';
import { TextField } from '../ui/text-field';
import { DialogActions } from './dialog-actions';
import { ErrorPanel } from './error-panel';

/**
 * "Save as scenario" (issue 28 item 2), on the Callbacks and Notifications pages: the selected
 * events (row selection, shared/row-selection.tsx), or when none is selected every event listed
 * under the current filters, recorded as a scenario file in the scenario folder, as
 * `dets-console scenario record --events` does: each a step, tokens and transaction_ids fresh on
 * every run. The button says which it will save. `what` names them ("callbacks"); the button's
 * test id is `${testId}`.
 */
export function SaveScenarioButton({
  selectedIds,
  listedIds,
  what,
  testId,
}: {
  selectedIds: readonly string[];
  listedIds: readonly string[];
  what: string;
  testId: string;
}) {
  const [open, setOpen] = useState(false);
  const maySave = useMayCall('scenario.save');
  const some = selectedIds.length > 0;
  const eventIds = some ? selectedIds : listedIds;
  const whose = some ? `${selectedIds.length.toLocaleString('en')} selected ${what}` : `${what} listed now`;
  // Saving writes a file on the serving machine (team-roles.ts: scenario.save).
  if (!maySave) return null;
  return (
    <>
      <button
        type="button"
        className="btn btn-small"
        disabled={eventIds.length === 0}
        onClick={() => setOpen(true)}
        data-testid={testId}
        data-scope={some ? 'selected' : 'listed'}
        title={`Record the ${whose} as a scenario file`}
      >
        {some
          ? `Save ${selectedIds.length.toLocaleString('en')} selected as scenario`
          : 'Save all listed as scenario'}
      </button>
      {open ? (
        <SaveScenarioDialog eventIds={eventIds} whose={whose} what={what} onClose={() => setOpen(false)} />
      ) : null}
    </>
  );
}

/** At most this many events in one scenario (the contract's bound). */
const MAX_EVENTS = 1000;

function SaveScenarioDialog({
  eventIds,
  whose,
  what,
  onClose,
}: {
  eventIds: readonly string[];
  /** "2 selected callbacks", "callbacks listed now". */
  whose: string;
  what: string;
  onClose: () => void;
}) {
  const { folder, setFolder } = useScenarioFolder();
  const [dir, setDir] = useState(folder);
  const [name, setName] = useState(what);
  const save = useSaveScenario();
  // The list is newest first; a scenario replays in the order things happened (the core sorts).
  const ids = eventIds.slice(0, MAX_EVENTS);
  const file = `${name.trim()}.json`;
  return (
    <Dialog title="Save as scenario" onClose={onClose} testId="save-scenario-dialog">
      {save.data ? (
        <>
          <p data-testid="save-scenario-done">
            Saved <code>{save.data.path}</code>: {(save.data.recorded.scenario.steps as unknown[]).length}{' '}
            steps.
          </p>
          <DialogActions
            onCancel={onClose}
            cancelLabel="Close"
            confirmLabel="Close"
            confirmTestId="save-scenario-close"
            onConfirm={onClose}
          />
        </>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            setFolder(dir.trim());
            save.mutate({ folder: dir.trim(), file, name: name.trim(), event_ids: [...ids] });
          }}
        >
          <p className="muted" data-testid="save-scenario-scope">
            {eventIds.length > ids.length
              ? `The first ${ids.length.toLocaleString('en')} of the ${whose}`
              : `The ${whose}`}{' '}
            ({ids.length.toLocaleString('en')} events), one step each (repeats of a notification fold into its
            step).
          </p>
          <TextField id="save-scenario-folder" label="Folder" value={dir} onChange={setDir} mono />
          <TextField
            id="save-scenario-name"
            label="Scenario name"
            hint="its file is NAME.json; letters, digits, - and _"
            value={name}
            onChange={setName}
            mono
          />
          {save.error ? (
            <ErrorPanel title="Not saved" error={save.error} testId="save-scenario-error" />
          ) : null}
          <DialogActions
            onCancel={onClose}
            confirmLabel={save.isPending ? 'Saving…' : 'Save'}
            confirmTestId="save-scenario-confirm"
            confirmDisabled={save.isPending || dir.trim() === '' || name.trim() === ''}
          />
        </form>
      )}
    </Dialog>
  );
}
