export { NOTICE_LINK_SLOT, type Notice } from './domain/notice.ts';
export { formatDay, formatMoney, formatPeriod } from './domain/receiptMessage.ts';
export { queueNotice } from './jobs/noticeOutbox.ts';
export { scrubBuyerFromOutbox } from './receiptScrub.ts';
