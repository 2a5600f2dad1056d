import type { Action, ActionInput } from './domain/actions.ts';
import { invalid } from '../../platform/domain/index.ts';
import { secretBox, type SecretBox } from '../../platform/lib/index.ts';

/**
 * Send Webhook signing secrets must be usable for HMAC, so they are sealed, not hashed: the
 * sequence's events, the workflows' copies of its actions and every backup hold them sealed.
 */
export const sendWebhookSecretBox = (serviceSecret: Uint8Array): SecretBox => secretBox(serviceSecret, 'commerce send webhook secrets');

const looksSealed = (stored: string) => stored.startsWith('v1.') && stored.split('.').length === 4;

/** The secret to sign with: opened when sealed; one recorded before secrets were sealed, as it is. */
export function openSigningSecret(box: SecretBox, stored: string): string {
  return looksSealed(stored) ? box.open(stored) : stored;
}

/**
 * The actions with each secret given in plain text sealed for the decider. A secret equal to the
 * one its step holds is passed as kept, so saving an unchanged sequence records nothing. Without a
 * box (a caller that cannot seal) a plain secret is refused rather than written in the clear.
 */
export function sealActionSecrets(box: SecretBox | undefined, actions: readonly ActionInput[], held: readonly Action[]): ActionInput[] {
  return actions.map((action, index) => {
    if (action.type !== 'send_webhook' || typeof action.signing_secret !== 'string') return action;
    if (!box) throw invalid('invalid_signing_secret', 'This caller cannot seal signing secrets.', `actions.${index}.signing_secret`);
    const current = held[index];
    const kept = current?.type === 'send_webhook' && current.signing_secret !== null && openSigningSecret(box, current.signing_secret) === action.signing_secret;
    const { signing_secret: plain, ...rest } = action;
    return kept ? rest : { ...rest, signing_secret: { sealed: box.seal(plain) } };
  });
}
