export { type Actor, type EventMetadata, type EventStore, type NewEvent, type RecordedEvent, WrongExpectedRevisionError } from './eventStore.ts';
