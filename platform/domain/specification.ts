import { asArray, type Decider, type DomainEvent } from './decider.ts';

/**
 * given/when/then for deciders: `given(events).when(command).then(events)` or `.thenThrows(code)`.
 * Lives in domain/ because it is as pure as the deciders it drives; tests import it.
 */
export function deciderSpec<S, C, E extends DomainEvent>(decider: Decider<S, C, E>) {
  return {
    given(events: E[] = []) {
      return {
        when(command: C) {
          const run = () => asArray(decider.decide(command, events.reduce(decider.evolve, decider.initialState())));
          return {
            then(expected: E[]): E[] {
              const actual = run();
              assertDeepEqual(actual, expected);
              return actual;
            },
            thenThrows(code: string): void {
              let thrown: unknown;
              try {
                run();
              } catch (error) {
                thrown = error;
              }
              const actualCode = (thrown as { code?: string } | undefined)?.code;
              if (actualCode !== code) {
                throw new Error(`expected the command to be refused with ${code}, got ${thrown ? String(actualCode ?? thrown) : 'no error'}`);
              }
            },
          };
        },
      };
    },
  };
}

function assertDeepEqual(actual: unknown, expected: unknown): void {
  const a = canonical(actual);
  const e = canonical(expected);
  if (a !== e) throw new Error(`events differ\n  expected: ${e}\n  actual:   ${a}`);
}

/** JSON with object keys sorted, so two events that differ only in key order compare equal. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([x], [y]) => x.localeCompare(y)))
      : v,
  );
}
