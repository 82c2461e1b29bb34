import { create } from 'zustand';
import type { StepId } from '../../../electron/contract/schemas/walkthrough';
import type { StepMessage } from './step-card';

/**
 * UI state of the Walkthrough page that outlives a visit to another page (a spec citation opens
 * the reference, then Back): each step's "Last run" line, per environment.
 */
interface WalkthroughUiState {
  messages: Record<string, Partial<Record<StepId, StepMessage>>>;
  setMessage: (envId: string, step: StepId, message: StepMessage) => void;
  clear: (envId: string) => void;
}

export const useWalkthroughUi = create<WalkthroughUiState>((set) => ({
  messages: {},
  setMessage: (envId, step, message) =>
    set((s) => ({ messages: { ...s.messages, [envId]: { ...s.messages[envId], [step]: message } } })),
  clear: (envId) => set((s) => ({ messages: { ...s.messages, [envId]: {} } })),
}));

/** For tests: forget every message. */
export function resetWalkthroughUi(): void {
  useWalkthroughUi.setState({ messages: {} });
}
