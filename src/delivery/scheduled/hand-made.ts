// A report of a scheduled period made by hand (`visync report --period P` writes into the object
// store, where the worker writes its reports: reports/account=A/brand=B/period=P/, manifest.json
// last), taken up by `visync report send --period P`: the way to deliver a period that stayed
// stale (docs/operations.md, "Scheduled reports").
import { reportPrefix } from '../../sinks/layout.js';
import type { DeliveryRecord } from './records.js';
import { base, save, storedVersion } from './steps.js';
import type { DeliveryOptions, Due } from './types.js';

/**
 * The record of the workspace's report of the period as `made` at its store location, when the
 * store holds one made by hand; undefined when it holds none. The record's stale reason goes: the
 * report is there now. Recipients already sent stay recorded (sends/), so none is mailed twice.
 */
export async function handMadeRecord(o: DeliveryOptions, due: Due): Promise<DeliveryRecord | undefined> {
  const prefix = reportPrefix(o.account.name, due.brandId, due.period.label);
  // manifest.json is written after the report's files: with it, the report is whole.
  const version = await storedVersion(o, due);
  if (!version.version) return undefined;
  const location = `${o.store.location.replace(/\/$/, '')}/${prefix}`;
  const record = await save(o, { ...base(o, due), state: 'made', location, ...version });
  o.logger.info(
    { brand_id: due.brandId, period: due.period.label, location },
    'report made by hand taken up',
  );
  return record;
}
