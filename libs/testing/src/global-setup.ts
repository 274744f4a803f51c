import type { TestProject } from 'vitest/node';
import { provisionInfrastructure } from './provision.js';
import './test-infrastructure.js';

/** vitest globalSetup of the integration project: provisions once, hands the URLs to every test file. */
export default async function setup(project: TestProject): Promise<void> {
  project.provide('infra', await provisionInfrastructure());
}
