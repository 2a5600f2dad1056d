export { followFromCheckpoint } from './followFromCheckpoint.ts';
export { type CommandContext, handleCommand, reactionContext, toNewEvent } from './handleCommand.ts';
export { allocatedStream, allocateId } from './idAllocator.ts';
export { type Projection, type ProjectionTx } from './projection.ts';
export { type Logger } from './projectionRunner.ts';
export { timeOrderedUuid } from './timeOrderedUuid.ts';
