import { timeOrderedUuid } from './timeOrderedUuid.ts';
import { asArray, type Decider, type DomainEvent } from '../domain/decider.ts';
import { deepFreeze } from '../lib/deepFreeze.ts';
import { DomainError } from '../domain/domainError.ts';
import { Generations } from '../lib/generations.ts';
import { WrongExpectedRevisionError, type EventMetadata, type EventStore, type NewEvent, type RecordedEvent } from '../eventStore/eventStore.ts';

export type CommandContext = {
  store: EventStore;
  metadata: EventMetadata;
};

/**
 * The context of a subscriber's command in reaction to a recorded event: the event's correlation
 * id carried on, the subscriber as a system actor, in the event's organization unless told.
 */
export function reactionContext(
  store: EventStore,
  nowMs: number,
  cause: RecordedEvent,
  actor: string,
  organizationId: string | null = cause.metadata.organization_id ?? null,
): CommandContext {
  return {
    store,
    metadata: { correlation_id: cause.metadata.correlation_id, actor: { type: 'system', name: actor }, organization_id: organizationId, occurred_at: Math.floor(nowMs / 1000) },
  };
}

export type CommandResult<State, Event> = {
  events: Event[];
  state: State;
  /** Revision of the stream after the append (-1 when nothing was appended to a new stream). */
  revision: number;
  /** Global position of the last appended event, or null when the decision appended nothing. */
  position: number | null;
};

const MAX_ATTEMPTS = 4;

export type CommandOptions = {
  /**
   * The stream's events as the caller has just read them ([] for a stream name it just made up):
   * the first attempt decides on these instead of reading the stream again. Should the stream
   * have moved on meanwhile, the append's expected revision refuses and the next attempt reads.
   */
  known?: readonly RecordedEvent[];
};

/**
 * The command loop: 1. read the stream and fold it into state, 2. decide, 3. append with the
 * revision we read. Another writer may have appended in between; then we start over, a few
 * times, and answer with a conflict when that does not settle it.
 *
 * Commands of this process on one stream take turns (see `inTurn`), so the writer that can
 * come in between is another process, not a neighbour in the same group commit.
 */
export function handleCommand<State, Command, Event extends DomainEvent>(
  ctx: CommandContext,
  stream: string,
  decider: Decider<State, Command, Event>,
  command: Command,
  options: CommandOptions = {},
): Promise<CommandResult<State, Event>> {
  return inTurn(ctx.store, stream, async () => {
    const folded = foldedStates(ctx.store, decider);
    for (let attempt = 1; ; attempt++) {
      const recorded = attempt === 1 && options.known ? options.known : await ctx.store.readStream(stream);
      const state = fold(decider, recorded, folded.get(stream));
      const revision = recorded.length === 0 ? -1 : recorded[recorded.length - 1]!.revision;

      const events = asArray(decider.decide(command, state));
      if (events.length === 0) return { events, state, revision, position: null };

      try {
        const appended = events.map((e) => toNewEvent(e, ctx.metadata));
        const result = await ctx.store.append(stream, appended, revision === -1 ? 'no_stream' : revision);
        const after = events.reduce(decider.evolve, state);
        // Only long streams are worth remembering: short ones fold in no time, and a catch URL's
        // reception streams (each commanded once) would churn the map on every request.
        if (recorded.length >= FOLD_MEMO_MIN_EVENTS) {
          // Frozen: the next command on this stream starts from this very object.
          folded.set(stream, { revision: result.revision, lastEventId: appended[appended.length - 1]!.id, state: deepFreeze(after) });
        }
        return { events, state: after, revision: result.revision, position: result.position };
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
        if (attempt >= MAX_ATTEMPTS) {
          throw new DomainError('conflict', 'concurrent_update', 'The resource was changed by another request. Try again.');
        }
      }
    }
  });
}

/*
 * Per store, the last command queued on each stream. Without turns, N commands racing on one hot
 * stream (a popular promo's enrolments from a burst of webhooks, run 16 at a time) all read the
 * same revision and land in the same group commit, where one wins and the others read, fold and
 * try again, until some give up on `concurrent_update` after every retry.
 */
const turns = new WeakMap<EventStore, Map<string, Promise<unknown>>>();

function inTurn<T>(store: EventStore, stream: string, work: () => Promise<T>): Promise<T> {
  let queue = turns.get(store);
  if (!queue) turns.set(store, (queue = new Map()));
  const previous = queue.get(stream);
  const result = previous ? previous.then(work, work) : work();
  const settled = result.then(
    () => undefined,
    () => undefined,
  );
  queue.set(stream, settled);
  void settled.then(() => {
    if (queue.get(stream) === settled) queue.delete(stream);
  });
  return result;
}

/** A stream's state as a decider last folded it: at `revision`, whose event has `lastEventId`. */
type Folded = { revision: number; lastEventId: string; state: unknown };

/*
 * Per store and decider, the state each recently commanded stream was left in, so the next
 * command on it folds only the events appended since, not all N participants of a promo on every
 * enrolment. A stream only grows, by contiguous revisions, so the state at revision r still holds
 * when the event read at r is the one folded (checked by id); otherwise the whole stream is
 * folded again.
 */
type FoldedStates = Generations<string, Folded>;
const foldedByStore = new WeakMap<EventStore, WeakMap<object, FoldedStates>>();
/** About the 1,000 streams commanded last, per store and decider. */
const FOLDED_MAX = 1000;
const FOLD_MEMO_MIN_EVENTS = 16;

function foldedStates(store: EventStore, decider: object): FoldedStates {
  let byDecider = foldedByStore.get(store);
  if (!byDecider) foldedByStore.set(store, (byDecider = new WeakMap()));
  let states = byDecider.get(decider);
  if (!states) byDecider.set(decider, (states = new Generations<string, Folded>(FOLDED_MAX / 2)));
  return states;
}

function fold<State, Command, Event extends DomainEvent>(
  decider: Decider<State, Command, Event>,
  recorded: readonly RecordedEvent[],
  from: Folded | undefined,
): State {
  const resume = from !== undefined && recorded[from.revision]?.id === from.lastEventId;
  let state = resume ? (from.state as State) : decider.initialState();
  for (let i = resume ? from.revision + 1 : 0; i < recorded.length; i++) state = decider.evolve(state, recorded[i] as unknown as Event);
  return state;
}

export function toNewEvent(event: DomainEvent, metadata: EventMetadata): NewEvent {
  return { id: timeOrderedUuid(), type: event.type, data: event.data, metadata };
}
