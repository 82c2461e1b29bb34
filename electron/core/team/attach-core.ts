/**
 * What the attach process serves its local page (issue 30 items 2 and 3): the hub's calls and
 * events (HubClient), except `team.addRoute`, which needs this laptop's relay connection
 * (RelayClient) and is answered here: "and the same on an attached page" (issue 30 item 3).
 * The argument is checked against the contract here too, as any core's dispatch does. Its
 * `team.session` names the laptop's backend, so the page offers its "Add route" form.
 */
import { type Envelope, parseArgs, toErrorData } from '../../contract';
import type { HubClient } from './hub-client';
import type { RelayClient } from './relay-client';
import { noLaptop } from './relay-hub';

/** The attach process's core for the local browser-mode server. */
export class AttachCore {
  constructor(
    private readonly hub: HubClient,
    private readonly relay: RelayClient | null,
  ) {}

  get events(): HubClient['events'] {
    return this.hub.events;
  }

  async dispatch(method: string, input: unknown): Promise<Envelope<unknown>> {
    if (method === 'team.addRoute') return this.addRoute(input);
    const answer = await this.hub.dispatch(method, input);
    if (method !== 'team.session' || !answer.ok || !this.relay) return answer;
    return { ok: true, value: { ...(answer.value as object), forward_to: this.relay.forwardTo } };
  }

  private async addRoute(input: unknown): Promise<Envelope<unknown>> {
    try {
      const route = parseArgs('team.addRoute', input);
      if (!this.relay) throw noLaptop();
      return { ok: true, value: await this.relay.add(route) };
    } catch (err) {
      return { ok: false, error: toErrorData(err) };
    }
  }
}
