import { ConfigError } from './read-config.js';

/** For a process's main: an invalid setting prints the variables at fault and exits with status 2. */
export function loadConfigOrExit<T>(load: () => T): T {
  try {
    return load();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
}
