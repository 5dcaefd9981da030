// The route of easy-peak's dialog: this month's peaks of one meter from the archive.
import { EditorRequestError } from './editor-data';
import { isObject } from '../engine/tariff/tariff';
import { peakPreview } from '../runtime/peak/peak-preview';
import { peakSettings } from '../runtime/peak/peak-settings';
import { localPeriod } from '../engine/time/time';
import { accessFor, AdminRED, text } from './admin-access';

/**
 * easy-peak's dialog: this month's peaks of one meter from the archive (the deployed
 * account's, or a typed token's), with the dialog's settings as typed.
 */
export async function peaks(RED: AdminRED, body: Record<string, unknown>) {
  const gateway = text(body.gateway);
  if (!gateway) throw new EditorRequestError('bad_request', 'no gateway id given');
  const sensor = text(body.sensor) || 'e1.kwh';
  let settings: ReturnType<typeof peakSettings>;
  try {
    settings = peakSettings(isObject(body.settings) ? body.settings : {});
  } catch (err) {
    throw new EditorRequestError('bad_request', (err as Error).message);
  }
  const access = accessFor(RED, body);
  const now = Date.now();
  const { from } = localPeriod('month', now, { timezone: access.timezone });
  const readings = access.client
    ? await access.client.fetchData(gateway, sensor, from, now)
    : await access.hub.fetchData(gateway, sensor, from, now);
  return { gateway, sensor, ...peakPreview(readings, settings, access.timezone, now) };
}
