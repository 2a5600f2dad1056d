import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../platform/runtime/config.ts';

describe('TRUST_PROXY', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['false', false],
    ['0', false],
    ['true', true],
    ['2', 2],
    ['127.0.0.1', ['127.0.0.1']],
    ['10.0.0.0/8, 192.168.1.7 ,fd00::/8,::1', ['10.0.0.0/8', '192.168.1.7', 'fd00::/8', '::1']],
    ['loopback,uniquelocal', ['loopback', 'uniquelocal']],
  ])('%j → %j', (value, expected) => {
    expect(loadConfig(value === undefined ? {} : { TRUST_PROXY: value }).TRUST_PROXY).toEqual(expected);
  });

  it.each(['yes', 'proxy.internal', '10.0.0.0/33', '::1/129', '10.0.0.0/8,', '1.2.3', '10.0.0.0/abc'])('refuses %j with a line naming the setting', (value) => {
    expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(ConfigError);
    expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(/^invalid configuration: TRUST_PROXY: /);
  });
});
