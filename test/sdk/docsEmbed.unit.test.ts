import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { EXAMPLE_DEFAULTS } from '../../modules/checkout/http/hostedCheckout/examplePage.ts';

/* The Embed snippet of docs/sdk.md is copied as it is: every offer it names must be one `commerce demo` creates. */
test('the Embed snippet of docs/sdk.md names the offer commerce demo creates, and loads the SDK from the default local address', () => {
  const doc = readFileSync(new URL('../../docs/sdk.md', import.meta.url), 'utf8');
  const embed = /#{2,3} Embed\s+```html\n([\s\S]*?)```/.exec(doc)?.[1];
  expect(embed).toBeDefined();
  const offers = [...embed!.matchAll(/data-service-present="([^"]+)"|sdk\.(?:present|mount)\((?:[^,]+,\s*)?'([^']+)'/g)].map((m) => m[1] ?? m[2]);
  expect(offers.length).toBeGreaterThanOrEqual(2);
  // EXAMPLE_DEFAULTS.offer is held equal to `commerce demo --json` by the browser test of the example page.
  for (const offer of offers) expect(offer).toBe(EXAMPLE_DEFAULTS.offer);
  expect(embed).toContain('src="http://127.0.0.1:3000/sdk.js"');
});
