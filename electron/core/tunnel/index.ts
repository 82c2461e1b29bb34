export { createTunnelService, registerUrls, type TunnelService, type BankListenerInfo } from './service';
export { TunnelError, stopAllClients } from './attempt';
export { parseTunnelTarget, planFor, type TunnelSpec } from './clients';
export { loadTlsFiles, TlsFileError, type CheckedTls } from './tls';
export { isLoopbackHost, reachableAddresses } from './interfaces';
export { ProbeBook, runProbe, PROBE_PATH } from './probe';
