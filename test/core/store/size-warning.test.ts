/** The store's health carries the database's size and a warning past the configured size. */
import { afterAll, describe, expect, it } from 'vitest';
import { EventHub } from '../../../electron/core/event-hub';
import { blankEvent, openEventStore } from '../../../electron/core/store';
import { removeTempDirs, tempDir } from './helpers';

afterAll(removeTempDirs);

describe('store health: size', () => {
  it('reports the size, and warns once the database is past the warning size', async () => {
    const dataDir = tempDir();
    const quiet = await openEventStore({ dataDir, events: new EventHub() });
    await quiet.append(blankEvent('callback', new Date().toISOString()), { durable: true });
    const ok = quiet.health();
    expect(ok.size_bytes).toBeGreaterThan(0);
    expect(ok.size_warning).toBeNull();
    await quiet.close();

    const store = await openEventStore({ dataDir, events: new EventHub(), sizeWarningBytes: 4096 });
    const health = store.health();
    expect(health.state).toBe('ok');
    expect(health.size_warning).toMatch(/past 0\.000 GiB: acknowledged notifications are all kept/);
    expect(health.size_warning).toContain(dataDir);
    await store.close();
  });
});
