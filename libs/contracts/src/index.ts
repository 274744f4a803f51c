export * from './entities/entity-data.js';
export * from './events/topics.js';
