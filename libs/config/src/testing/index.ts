/**
 * For tests that check a configuration is refused: the error `readConfig` throws. Production code never
 * catches it itself; `loadConfigOrExit` turns it into a clear message and an exit.
 */
export { ConfigError } from '../read-config.js';
