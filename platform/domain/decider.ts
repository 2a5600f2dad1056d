/**
 * A decider is plain data: what an aggregate decides given a command and its state, and how each
 * event changes that state. Pure: time and ids arrive inside the command, never from a clock.
 */
export type DomainEvent<Type extends string = string, Data = unknown> = Readonly<{ type: Type; data: Data }>;

export type Decider<State, Command, Event extends DomainEvent> = Readonly<{
  initialState: () => State;
  evolve: (state: State, event: Event) => State;
  decide: (command: Command, state: State) => Event | Event[];
}>;

export function fold<State, Event extends DomainEvent>(
  decider: Pick<Decider<State, never, Event>, 'initialState' | 'evolve'>,
  events: readonly Event[],
): State {
  return events.reduce(decider.evolve, decider.initialState());
}

export function asArray<T>(value: T | T[]): T[] {
  return Array.isArray(value) ? value : [value];
}
