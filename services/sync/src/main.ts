/** The sync process of the distributed mode (`npm run start:sync`): mirrors UPSTREAM_BASE_URL into Kafka. */
import { keepWebAssemblyOnBaselineTier } from './baseline-wasm-tier.js';

// Before any module of the service is loaded, so that whatever WebAssembly they compile, at load or later
// (undici's HTTP parser, today on the first request), is compiled under it.
keepWebAssemblyOnBaselineTier();
await import('./start-sync.js');
