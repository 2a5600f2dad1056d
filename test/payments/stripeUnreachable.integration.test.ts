import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stripeClientFactory } from '../../modules/payments/stripeProvider.ts';
import { PaymentProviderError } from '../../modules/payments/paymentProvider.ts';

/** A port that takes connections and never answers: Stripe out of reach behind a silent network. */
async function blackHole(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('Stripe out of reach', { timeout: 60_000 }, () => {
  let hole: Awaited<ReturnType<typeof blackHole>>;
  beforeAll(async () => {
    hole = await blackHole();
  });
  afterAll(() => hole?.close());

  const provider = (port: number) =>
    stripeClientFactory({ STRIPE_API_HOST: '127.0.0.1', STRIPE_API_PORT: port, STRIPE_API_PROTOCOL: 'http', refundTimeoutMs: 400 })('sk_test_unreachable');

  it('is an unreachable provider (no provider code), not a refusal, when the connection fails', async () => {
    const error = await provider(await closedPort())
      .refund({ paymentId: 'pi_1', amount: 100, idempotencyKey: 'k1' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaymentProviderError);
    expect((error as PaymentProviderError).providerCode).toBeNull();
    expect((error as PaymentProviderError).message).toBe('Stripe could not be reached to refund a payment.');
  });

  it('gives up on a refund after its timeout and one retry when Stripe never answers', async () => {
    const began = Date.now();
    const error = await provider(hole.port)
      .refund({ paymentId: 'pi_1', amount: 100, idempotencyKey: 'k2' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaymentProviderError);
    expect((error as PaymentProviderError).providerCode).toBeNull();
    // Two tries of the timeout and Stripe's short back-off between them, not its default of 80 s each.
    expect(Date.now() - began).toBeGreaterThanOrEqual(800);
    expect(Date.now() - began).toBeLessThan(10_000);
  });
});
