/**
 * The sync's V8 heap cap in MiB wherever it runs as its own process: the base Kubernetes Deployment, the
 * compose file, the local stack and the sync bench (the deploy tests check the manifests set this value).
 * Without one, V8 let garbage grow to two or three times the live heap during a first sync.
 */
export const SYNC_HEAP_CAP_MB = 384;

/** The Node options that set the cap, as a process is started with them. */
export const SYNC_NODE_OPTIONS: readonly string[] = [`--max-old-space-size=${SYNC_HEAP_CAP_MB}`];
