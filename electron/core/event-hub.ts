import { events, type EventName, type EventPayload } from '../contract';

type Listener<E extends EventName> = (payload: EventPayload<E>) => void;
type AnyListener = (event: EventName, payload: unknown) => void;

/**
 * The core's live events. Hosts forward them (IPC `webContents.send`, the headless event
 * stream); core modules emit them. Payloads are checked against the contract's schemas, so a
 * host can forward them without looking inside.
 */
export class EventHub {
  private readonly listeners = new Map<EventName, Set<(payload: unknown) => void>>();
  private readonly anyListeners = new Set<AnyListener>();

  emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
    const listeners = this.listeners.get(event);
    // The contract's check protects listeners; with none (`serve` with no UI, the bench) there
    // is nothing to protect, and an events.appended per stored event would pay for it anyway.
    if ((listeners === undefined || listeners.size === 0) && this.anyListeners.size === 0) return;
    const checked = events[event].parse(payload) as unknown;
    for (const l of listeners ?? []) safely(() => l(checked));
    for (const l of this.anyListeners) safely(() => l(event, checked));
  }

  /** Whether anyone listens to `event`: an emitter whose payload is costly to build asks first. */
  wants(event: EventName): boolean {
    return this.anyListeners.size > 0 || (this.listeners.get(event)?.size ?? 0) > 0;
  }

  on<E extends EventName>(event: E, listener: Listener<E>): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    const l = listener as (payload: unknown) => void;
    set.add(l);
    return () => set.delete(l);
  }

  /** Every event, for hosts that forward all of them. */
  onAny(listener: AnyListener): () => void {
    this.anyListeners.add(listener);
    return () => this.anyListeners.delete(listener);
  }
}

function safely(fn: () => void): void {
  try {
    fn();
  } catch {
    // A listener's failure must not stop the others nor the emitter.
  }
}
