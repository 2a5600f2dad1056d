/**
 * Freezes a value and everything it holds (already frozen parts are taken as frozen through),
 * so an object shared between readers fails loudly when one of them tries to change it.
 */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
