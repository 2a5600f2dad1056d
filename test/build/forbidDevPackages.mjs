// `node --import ./forbidDevPackages.mjs …`: the process fails on any import of a package that a
// production install does not have (compilers and bundlers), as it would in the Docker image.
import { register } from 'node:module';

register(
  `data:text/javascript,${encodeURIComponent(`
export async function resolve(specifier, context, next) {
  if (/^(esbuild|tsx|typescript|vitest)(\\/|$)/.test(specifier)) throw new Error('production process imported the dev dependency ' + specifier);
  return next(specifier, context);
}`)}`,
);
