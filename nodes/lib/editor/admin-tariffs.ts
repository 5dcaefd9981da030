// The routes of the account's tariffs: Test connection, the tariff list, and the week's
// price chart (with easy-plan's preview of the settings as typed).
import { chartData, connectionFailed, connectionOk, EditorRequestError, editorError, requestedTariff, tariffList } from './editor-data';
import type { TariffSnapshot } from '../runtime/account/hub';
import { isObject } from '../engine/tariff/tariff';
import { planPreview } from '../runtime/plan/plan-planner';
import { toEpochMs } from '../engine/time/time';
import { Access, accessFor, AdminRED, text } from './admin-access';

export async function testConnection(RED: AdminRED, body: Record<string, unknown>) {
  let access: Access;
  try {
    access = accessFor(RED, body);
  } catch (err) {
    // the dialog's own mistakes (no token, a non-http URL) are a 400, not an outcome
    throw err instanceof EditorRequestError ? err : new EditorRequestError('bad_request', editorError(err).message);
  }
  if (access.hub) {
    const snapshot = await access.hub.sharedTariffs();
    return snapshot.error ? connectionFailed(snapshot.error) : connectionOk(snapshot);
  }
  try {
    return connectionOk(await access.client.fetchTariffs());
  } catch (err) {
    return connectionFailed(err);
  }
}

/**
 * The account's tariffs: fetched with a typed token, or the deployed account's shared
 * snapshot, which keeps its last good tariffs (marked stale) when the last fetch failed.
 */
async function fetchTariffs(
  access: Access,
): Promise<{ parsed: Pick<TariffSnapshot, 'tariffs' | 'problems'>; fetchedAt: number | null; stale: boolean; error: unknown }> {
  if (access.client) return { parsed: await access.client.fetchTariffs(), fetchedAt: Date.now(), stale: false, error: null };
  const snapshot = await access.hub.sharedTariffs();
  if (snapshot.error && snapshot.tariffs.length === 0) throw snapshot.error;
  return { parsed: snapshot, fetchedAt: snapshot.fetchedAt, stale: snapshot.error !== null, error: snapshot.error };
}

export async function tariffs(RED: AdminRED, body: Record<string, unknown>) {
  const got = await fetchTariffs(accessFor(RED, body));
  return tariffList(got.parsed, got);
}

export async function chart(RED: AdminRED, body: Record<string, unknown>) {
  const access = accessFor(RED, body);
  const at = body.at === undefined || body.at === '' ? Date.now() : toEpochMs(body.at);
  if (at === null) throw new EditorRequestError('bad_request', '"at" must be an instant (epoch ms or ISO 8601)');
  const got = await fetchTariffs(access);
  const tariff = requestedTariff(got.parsed, text(body.tariff));
  const data = chartData(tariff, at, access.timezone);
  // easy-plan's dialog: its settings as typed, planned over the chart's week with the base line's sensors
  const plan = isObject(body.plan)
    ? planPreview(tariff, body.plan, at, data.to, { timezone: access.timezone, sensors: data.lines[0].sensors ?? undefined })
    : undefined;
  const answer = plan ? { ...data, plan } : data;
  return got.stale ? { ...answer, stale: true, error: editorError(got.error) } : answer;
}
