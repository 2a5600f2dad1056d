import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../platform/runtime/config.ts';

describe('number settings', () => {
  it('take whole numbers in decimal digits', () => {
    const config = loadConfig({ PORT: '8080', REQUEST_TIMEOUT_MS: '45000', WEBHOOK_MAX_ATTEMPTS: '3', SQLITE_BUSY_TIMEOUT_MS: '0' });
    expect(config).toMatchObject({ PORT: 8080, REQUEST_TIMEOUT_MS: 45_000, WEBHOOK_MAX_ATTEMPTS: 3, SQLITE_BUSY_TIMEOUT_MS: 0 });
    // Unset or empty: the default.
    expect(loadConfig({ PORT: '' }).PORT).toBe(3000);
  });

  it.each(['1e3', '0x10', ' 80', '80 ', '+80', '8.0', '-1', 'eighty'])('refuse %j with one line naming the variable', (value) => {
    expect(() => loadConfig({ PORT: value })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: value })).toThrow(/^invalid configuration: PORT: /);
    expect(() => loadConfig({ CATCH_RATE_LIMIT_MAX: value })).toThrow(/^invalid configuration: CATCH_RATE_LIMIT_MAX: /);
  });

  it('still check the range', () => {
    expect(() => loadConfig({ PORT: '65536' })).toThrow(/^invalid configuration: PORT: /);
    expect(() => loadConfig({ WEBHOOK_MAX_ATTEMPTS: '11' })).toThrow(/^invalid configuration: WEBHOOK_MAX_ATTEMPTS: /);
  });
});
