// `visync report mail-preview`: the e-mail a made report's recipients get, composed exactly as a send
// composes it (../scheduled/send.ts: the version's report.json, the workspace's settings and
// templates, the link when reports.mail.link is set), without sending it or recording anything.
import type { AccountConfig } from '../../config/schema.js';
import type { Period } from '../../history/period.js';
import type { ReportSettings } from '../../report/settings.js';
import type { ObjectStore } from '../../sinks/object-store.js';
import { attachedName, factsOf, linkOf, mailWordsOf } from '../scheduled/send.js';
import { type ComposedMail, composeMail } from './compose.js';

interface MailPreview extends ComposedMail {
  /** The attachment's name, as the mail names it. */
  attachment: string;
}

export async function previewMail(o: {
  store: ObjectStore;
  account: AccountConfig;
  brandId: string;
  period: Period;
  settings: ReportSettings;
  now: Date;
}): Promise<MailPreview> {
  const due = { brandId: o.brandId, period: o.period, settings: o.settings };
  const facts = await factsOf(o, due);
  const link = await linkOf({ ...o, now: () => o.now }, due, facts);
  const attachment = attachedName(facts, due);
  return { ...composeMail(mailWordsOf(facts, due, attachment, link)), attachment };
}
