// The worker threads' entries (issue 25 item 2): each is built as its own file,
// <outdir>/<name>.mjs, by scripts/build.mjs (dist/workers/) and by the bench's build
// (dist/bench/workers/), and started with `new Worker(url)`; electron/core/common/worker-file.ts
// finds the file from every host. npm packages stay external (the workers load libsql and the
// keychain binding by the path the main thread resolved).
export const WORKER_ENTRIES = {
  'writer-worker': 'electron/core/store/writer-worker.ts',
  'keychain-worker': 'electron/core/vault/keychain-worker.ts',
};
