import { describe, expect, it } from 'vitest';
import { userDecider } from '../../modules/identity/domain/user.ts';
import { fold } from '../../platform/domain/decider.ts';
import { deciderSpec } from '../../platform/domain/specification.ts';

const created = { type: 'UserCreated', data: { id: 'usr_1', email: 'a@example.com', organization_id: 'org_1', created_at: 1 } } as const;
const passkey = { credential_id: 'c1', public_key: 'pk', counter: 0, transports: [], name: 'Laptop' };
const registered = { type: 'PasskeyRegistered', data: { ...passkey, registered_at: 5, via: 'invitation' } } as const;
const password = { type: 'UserPasswordSet', data: { password_hash: '$argon2id$x', set_at: 4, via: 'invitation' } } as const;

describe('passkeys managed from Settings', () => {
  const spec = deciderSpec(userDecider);

  it('adds a passkey once', () => {
    const phone = { ...passkey, credential_id: 'c2', name: 'Phone' };
    spec.given([created, registered]).when({ type: 'AddPasskey', passkey: phone, now: 9 }).then([{ type: 'PasskeyRegistered', data: { ...phone, registered_at: 9, via: 'settings' } }]);
    spec.given([created, registered]).when({ type: 'AddPasskey', passkey, now: 9 }).thenThrows('passkey_exists');
  });

  it('removes a passkey, but not the only way to sign in', () => {
    spec.given([created, password, registered]).when({ type: 'RemovePasskey', credentialId: 'c1', now: 9 }).then([{ type: 'PasskeyRemoved', data: { credential_id: 'c1', removed_at: 9 } }]);
    spec.given([created, registered]).when({ type: 'RemovePasskey', credentialId: 'c1', now: 9 }).thenThrows('last_credential');
    spec.given([created, password]).when({ type: 'RemovePasskey', credentialId: 'c1', now: 9 }).thenThrows('not_found');
    const removed = fold(userDecider, [created, password, registered, { type: 'PasskeyRemoved', data: { credential_id: 'c1', removed_at: 9 } }]);
    expect(removed).toMatchObject({ passkeys: [] });
  });
});
