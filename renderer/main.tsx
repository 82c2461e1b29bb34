import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
// Before the app, so the shared page rules sit where the page files do in the bundle: ahead of tokens/shell/ui.
import './styles/layout.css';
import { resolveClient } from './api/client';
import { App } from './app/app';
import { useSessionStore } from './app/session-store';
import { startTheme } from './app/theme';
import './styles/tokens.css';
import './styles/shell.css';
import './shared/ui.css';
import './shared/ui-records.css';
import './shared/report.css';
import './ui/ui-primitives.css';

// Before the first render, so a pinned theme never flashes the other one.
startTheme();

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');

createRoot(root).render(
  <StrictMode>
    {/* A 401 from the host (a stale token) switches the whole app to the access-link page. */}
    <App resolution={resolveClient(window, useSessionStore.getState().rejectAccess)} />
  </StrictMode>,
);
