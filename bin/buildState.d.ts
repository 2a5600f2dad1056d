/** See buildState.js (plain JavaScript: `npm start` runs it before anything is built). */
export function buildState(root: string): { state: 'missing' | 'stale' | 'fresh'; reason?: string };
