/**
 * Prints the name of every process definition (the services and the gateway), one a line. The image build writes them to a file that its
 * entrypoint reads, so the image runs exactly the services that are defined, without loading them all at
 * each start.
 */
import { PROCESS_DEFINITIONS } from './service-definitions.js';

process.stdout.write(`${PROCESS_DEFINITIONS.map((definition) => definition.name).join('\n')}\n`);
