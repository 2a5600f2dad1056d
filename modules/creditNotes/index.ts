export { creditNoteId, issueCreditNotes } from './creditNoteCommands.ts';
export { type CreditNoteDoc, type CreditNoteResource, listCreditNotes, presentCreditNote } from './creditNoteProjection.ts';
export { creditNoteLines } from './domain/creditNoteText.ts';
export { type CreditNote, formatCreditNoteNumber } from './domain/creditNote.ts';
export { creditNotePdf } from './http/creditNotePdf.ts';
// Answers of the routes, whose inferred types the dashboard imports (type-only).
export { CreditNoteSchema } from './http/creditNoteSchemas.ts';
export { scrubCreditNoteBuyer } from './creditNoteScrub.ts';
