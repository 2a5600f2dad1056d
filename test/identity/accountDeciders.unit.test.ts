import { describe, expect, it } from 'vitest';
import { userDecider } from '../../modules/identity/domain/user.ts';
import { sessionLive, userSessionDecider } from '../../modules/identity/domain/userSession.ts';
import { fold } from '../../platform/domain/decider.ts';
import { deciderSpec } from '../../platform/domain/specification.ts';

const created = { type: 'UserCreated', data: { id: 'usr_1', email: 'a@example.com', organization_id: 'org_1', created_at: 1 } } as const;
const invited = { type: 'UserInvited', data: { token_hash: 'h1', expires_at: 100, invited_at: 10 } } as const;

describe('user accounts', () => {
  const spec = deciderSpec(userDecider);
  it('accepts the newest unexpired invitation once, with a password or a passkey', () => {
    spec
      .given([created, invited])
      .when({ type: 'AcceptInvitationWithPassword', tokenHash: 'h1', passwordHash: '$argon2id$x', now: 50 })
      .then([{ type: 'UserPasswordSet', data: { password_hash: '$argon2id$x', set_at: 50, via: 'invitation' } }]);
    const used = { type: 'UserPasswordSet', data: { password_hash: '$argon2id$x', set_at: 50, via: 'invitation' } } as const;
    spec.given([created, invited, used]).when({ type: 'AcceptInvitationWithPassword', tokenHash: 'h1', passwordHash: 'y', now: 60 }).thenThrows('invitation_invalid');
    spec.given([created, invited]).when({ type: 'AcceptInvitationWithPassword', tokenHash: 'h1', passwordHash: 'y', now: 100 }).thenThrows('invitation_invalid');
    spec.given([created, invited]).when({ type: 'AcceptInvitationWithPassword', tokenHash: 'other', passwordHash: 'y', now: 50 }).thenThrows('invitation_invalid');
    const newer = { type: 'UserInvited', data: { token_hash: 'h2', expires_at: 200, invited_at: 20 } } as const;
    spec.given([created, invited, newer]).when({ type: 'AcceptInvitationWithPassword', tokenHash: 'h1', passwordHash: 'y', now: 50 }).thenThrows('invitation_invalid');
    const passkey = { credential_id: 'c1', public_key: 'pk', counter: 0, transports: [], name: 'Laptop' };
    spec
      .given([created, invited])
      .when({ type: 'AcceptInvitationWithPasskey', tokenHash: 'h1', passkey, now: 50 })
      .then([{ type: 'PasskeyRegistered', data: { ...passkey, registered_at: 50, via: 'invitation' } }]);
  });

  it('reads a role-less membership as owner, and changes and removes memberships', () => {
    const state = fold(userDecider, [created, { type: 'UserJoinedOrganization', data: { organization_id: 'org_2', joined_at: 2, role: 'member' } }]);
    expect(state).toMatchObject({ roles: { org_1: 'owner', org_2: 'member' }, currentOrganizationId: 'org_1' });
    spec.given([created]).when({ type: 'ChangeRole', organizationId: 'org_1', role: 'owner', now: 3 }).then([]);
    spec.given([created]).when({ type: 'ChangeRole', organizationId: 'org_9', role: 'owner', now: 3 }).thenThrows('not_found');
    const removed = fold(userDecider, [created, { type: 'MemberRemoved', data: { organization_id: 'org_1', removed_at: 3 } }]);
    expect(removed).toMatchObject({ memberships: [], currentOrganizationId: null, roles: {} });
  });
});

describe('user sessions', () => {
  const spec = deciderSpec(userSessionDecider);
  const signIn = { type: 'SignIn', sessionId: 'ses_1', userId: 'usr_1', secretHash: 'h', method: 'password', ip: null, userAgent: null, absoluteTtl: 1000, idleTimeout: 100, now: 0 } as const;
  it('lives until idle or absolute expiry, is touched only while alive, and ends once', () => {
    const started = userSessionDecider.decide(signIn, userSessionDecider.initialState());
    const events = Array.isArray(started) ? started : [started];
    const state = fold(userSessionDecider, events);
    expect(sessionLive(state, 99)).toBe(true);
    expect(sessionLive(state, 100)).toBe(false);
    const touched = fold(userSessionDecider, [...events, { type: 'SessionTouched', data: { at: 90 } }]);
    expect(sessionLive(touched, 180)).toBe(true);
    expect(sessionLive(fold(userSessionDecider, [...events, ...Array.from({ length: 12 }, (_, i) => ({ type: 'SessionTouched' as const, data: { at: (i + 1) * 90 } }))]), 1000)).toBe(false);
    spec.given(events).when({ type: 'Touch', now: 150 }).then([]);
    spec.given(events).when({ type: 'SignOut', reason: 'sign_out', by: 'usr_1', now: 5 }).then([{ type: 'SignedOut', data: { at: 5, reason: 'sign_out', by: 'usr_1' } }]);
    spec.given([...events, { type: 'SignedOut', data: { at: 5, reason: 'sign_out', by: null } }]).when({ type: 'SignOut', reason: 'revoked', by: null, now: 6 }).then([]);
  });
});
