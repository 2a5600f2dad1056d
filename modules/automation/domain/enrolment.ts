import { isEmail, MAX_EMAIL_LENGTH } from '../../promos/domain/promo.ts';
import type { EnrolInPromoAction } from './actions.ts';
import { renderTextTemplate, type TemplateScope } from './template.ts';

/** Kept with the participant, so bounded like the other stored texts. */
export const MAX_REFERENCE_LENGTH = 1000;
/** A failed result repeats what it refused, cut to this, so a megabyte field is not stored twice. */
const ECHOED = 320;

export type EnrolmentError = 'missing_email' | 'invalid_email' | 'invalid_reference';

export type Enrolment =
  | { ok: true; email: string; reference: string | null }
  | { ok: false; error: EnrolmentError; message: string; email: string; reference: string | null };

const echo = (text: string) => (text.length > ECHOED ? `${text.slice(0, ECHOED)}…` : text);

/**
 * The email and reference an enrol-in-promo action takes from the webhook. A catch URL records
 * whatever its sender wrote (CRMs send nulls and numbers; anyone holding the URL can send a
 * megabyte), so the fields are checked here, where they are used for fulfilment. A number as
 * reference is taken as its digits; a number as email is not an email.
 */
export function enrolmentFrom(action: EnrolInPromoAction, scope: TemplateScope): Enrolment {
  const email = renderTextTemplate(action.email, scope).trim();
  const referenceText = renderTextTemplate(action.reference, scope).trim();
  const reference = referenceText === '' ? null : referenceText;
  const refused = (error: EnrolmentError, message: string): Enrolment => ({
    ok: false,
    error,
    message,
    email: echo(email),
    reference: reference === null ? null : echo(reference),
  });
  if (email === '') {
    return refused('missing_email', `The webhook gave no email: ${action.email} is missing, null or empty in its payload.`);
  }
  if (!isEmail(email.toLowerCase())) {
    return refused('invalid_email', `The email must be a valid email address of at most ${MAX_EMAIL_LENGTH} characters.`);
  }
  if (reference !== null && reference.length > MAX_REFERENCE_LENGTH) {
    return refused('invalid_reference', `The reference must be at most ${MAX_REFERENCE_LENGTH} characters.`);
  }
  return { ok: true, email, reference };
}
