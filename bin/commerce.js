#!/usr/bin/env node
// The CLI and the server run from TypeScript source through tsx, so a clone needs no build step.
import { register } from 'tsx/esm/api';

register();
await import('../cli/main.ts');
