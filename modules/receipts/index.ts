export { NOTICE_LINK_SLOT, type Notice } from './domain/notice.ts';
export { formatDay, formatMoney, formatPeriod } from './domain/receiptMessage.ts';
export { noticeLinkBox, publicBaseUrl, queueNotice } from './jobs/noticeOutbox.ts';
export { receiptLinksOf } from './receiptLinks.ts';
