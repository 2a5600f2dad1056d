export { type Actor, type EventMetadata, type EventStore, type RecordedEvent, WrongExpectedRevisionError } from './eventStore.ts';
