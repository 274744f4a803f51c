export { createSimulator, type Simulator, type SimulatorOptions, type ResolvedSimulatorOptions } from './simulator.js';
export { startSimulator, type RunningSimulator, type StartSimulatorOptions } from './start-simulator.js';
export { Misbehaviours, WILDCARD_KIND, type Failure, type Misbehaviour } from './misbehave.js';
export { HUGE_NUMBER, RECORD_FAULTS, type RecordFault, type RecordFaultName } from './garble/record-faults.js';
export { ChurnError, type AddLecturerArgs, type AddOccurrenceArgs } from './churn/operations.js';
export type { ChurnRecord } from './churn/random-churn.js';
export { UniversityModel } from './model/university-model.js';
export { expectedOccurrences } from './model/describe-occurrence.js';
export { displayNameOf } from './generate/generate-lecturers.js';
export { formatDay } from './generate/day-number.js';
export type {
  DayNumber,
  ExpectedOccurrence,
  Lecture,
  Lecturer,
  Location,
  Occurrence,
  PlanningGroup,
  PlanningUnit,
  Program,
  Room,
} from './model/types.js';
export { encodeLatin1Json, JSON_CONTENT_TYPE } from './encode/starplan-json.js';
export { ICAL_CONTENT_TYPE } from './encode/group-calendar.js';
