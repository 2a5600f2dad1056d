export { requireAuth } from './http/auth.ts';
