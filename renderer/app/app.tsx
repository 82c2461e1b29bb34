import { useState } from 'react';
import { QueryClientProvider } from '@tanstack/react-query';
import { ClientProvider } from '../api/client-context';
import type { ClientResolution } from '../api/client';
import { AccessProblem } from './access-problem';
import { createQueryClient } from './query-client';
import { useSessionStore } from './session-store';
import { Shell } from './shell';

export function App({ resolution }: { resolution: ClientResolution }) {
  const [queryClient] = useState(createQueryClient);
  const rejected = useSessionStore((s) => s.accessRejected);
  if (resolution.kind === 'no-token') return <AccessProblem reason="missing" />;
  if (rejected !== null) return <AccessProblem reason="rejected" detail={rejected} />;
  return (
    <QueryClientProvider client={queryClient}>
      <ClientProvider client={resolution.client}>
        <Shell />
      </ClientProvider>
    </QueryClientProvider>
  );
}
