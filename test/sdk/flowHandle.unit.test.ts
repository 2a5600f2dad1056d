import { describe, expect, test } from 'vitest';
import { createFlow } from '../../sdk/flowHandle.ts';
import { z } from 'zod';
import { EMAIL, isEmail, normalizeFrame, normalizeSize } from '../../sdk/protocol.ts';

const session = { id: 'cs_1', status: 'completed', currency: 'EUR', total: 4900 };

async function collect(iterable: AsyncIterable<{ type: string }>): Promise<string[]> {
  const out: string[] = [];
  for await (const e of iterable) out.push(e.type);
  return out;
}

describe('FlowHandle', () => {
  test('events buffer from the start: an early and a late consumer both get every event, then end', async () => {
    const flow = createFlow('f1', () => undefined);
    const early = collect(flow.handle.events);
    flow.push({ type: 'start', session });
    flow.push({ type: 'purchase', session, subscription: null });
    const middle = collect(flow.handle.events);
    flow.push({ type: 'complete', session });
    flow.end({ status: 'complete', session, subscription: null });
    const late = collect(flow.handle.events);
    for (const got of await Promise.all([early, middle, late])) expect(got).toEqual(['start', 'purchase', 'complete']);
    expect(await flow.handle).toEqual({ status: 'complete', session, subscription: null });
    expect(flow.handle.result).toEqual({ status: 'complete', session, subscription: null });
  });

  test('cancel resolves (never rejects); nothing is accepted after the end', async () => {
    const flow = createFlow('f2', () => undefined);
    flow.push({ type: 'cancel' });
    flow.end({ status: 'cancel' });
    flow.push({ type: 'purchase', session, subscription: null });
    flow.end({ status: 'complete', session, subscription: null });
    const settled = await Promise.allSettled([Promise.resolve(flow.handle)]);
    expect(settled[0]).toEqual({ status: 'fulfilled', value: { status: 'cancel' } });
    expect(await collect(flow.handle.events)).toEqual(['cancel']);
    expect(await flow.handle.finally(() => undefined)).toEqual({ status: 'cancel' });
  });

  test('breaking out of a for await stops that consumer only', async () => {
    const flow = createFlow('f3', () => undefined);
    flow.push({ type: 'start', session });
    for await (const e of flow.handle.events) {
      expect(e.type).toBe('start');
      break;
    }
    flow.push({ type: 'complete', session });
    flow.end({ status: 'complete', session, subscription: null });
    expect(await collect(flow.handle.events)).toEqual(['start', 'complete']);
  });

  test('close() calls the frame closer', () => {
    let closed = 0;
    createFlow('f4', () => closed++).handle.close();
    expect(closed).toBe(1);
  });
});

describe('frame and size values', () => {
  test.each([
    ['modal', 'modal'],
    ['bottom sheet', 'bottom-sheet'],
    ['Bottom-Sheet', 'bottom-sheet'],
    ['bottom_sheet', 'bottom-sheet'],
    ['slideout', 'slideout'],
    ['embedded', 'embedded'],
    ['popup', 'modal'],
    [undefined, 'modal'],
  ])('frame %s → %s', (input, expected) => expect(normalizeFrame(input)).toBe(expected));
  test('sizes default to md', () => {
    expect(['sm', 'md', 'lg', 'full', 'xl', undefined].map((s) => normalizeSize(s))).toEqual(['sm', 'md', 'lg', 'full', 'md', 'md']);
  });
});

describe('the SDK email check', () => {
  test('is the server\'s (zod z.email()), so identify() and the form accept exactly what the session routes accept', () => {
    expect(EMAIL.source).toBe(z.regexes.email.source);
    const server = z.email().max(254);
    for (const e of ['buyer@example.com', 'Buyer@Example.com', "o'neil+x@mail.example.org", 'a@b.c', 'jörg@bücher.de', 'x@localhost', 'a..b@x.com', `${'a'.repeat(250)}@x.io`]) {
      expect(isEmail(e), e).toBe(server.safeParse(e).success);
    }
  });
});
