import { navigate } from '../../app/navigation';
import { useInspectorStore, type InspectorHandoff } from './inspector-store';

/**
 * "Open in Inspector" from any page: the Inspector's form (UI state in its zustand store) takes
 * the token, the key that verifies it and the expected claims, then the Inspector page opens and
 * inspects it as if it had been pasted.
 */
export function openInInspector(handoff: InspectorHandoff): void {
  useInspectorStore.getState().load(handoff);
  navigate('inspector');
}
