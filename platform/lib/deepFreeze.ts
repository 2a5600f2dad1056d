/**
 * Freezes a value and everything it holds (already frozen parts are taken as frozen through),
 * so an object shared between readers fails loudly when one of them tries to change it. Walks
 * with for…in and indexes rather than Object.values, which allocates an array per object: every
 * event this process appends is frozen once.
 */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) deepFreeze(value[i]);
    } else {
      const record = value as Record<string, unknown>;
      for (const key in record) if (Object.hasOwn(record, key)) deepFreeze(record[key]);
    }
    Object.freeze(value);
  }
  return value;
}
