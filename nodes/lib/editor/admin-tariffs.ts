// The routes of the account's tariffs: Test connection, the tariff list, and the week's
// price chart (with easy-plan's preview of the settings as typed).
import { chartData, connectionFailed, connectionOk, EditorRequestError, editorError, requestedTariff, tariffList } from './editor-data';
import type { TariffSnapshot } from '../runtime/account/hub';
import { isObject } from '../engine/tariff/tariff';
import { planPreview } from '../runtime/plan/plan-planner';
import { toEpochMs } from '../engine/time/time';
import { Access, accessFor, AdminRED, text } from './admin-access';
import type { PricesNode } from '../runtime/prices/prices-link';
import { StackSource } from '../runtime/prices/prices-source';
import { CHART_DAYS } from './editor-chart';
import type { Tariff } from '../engine/tariff/tariff';

/**
 * The easy-prices node a dialog names (its Prices field): the stack of its kept list over
 * `tariff`, or why there is none to chart (the node is new and not deployed yet).
 */
async function chartedStack(RED: AdminRED, pricesId: string, tariff: Tariff): Promise<{ source: unknown; note: string | null }> {
  if (pricesId === '') return { source: tariff, note: null };
  const node = RED.nodes.getNode(pricesId) as PricesNode | null;
  if (!node || node.type !== 'easy-prices' || !node.book || !node.settings) {
    return { source: tariff, note: 'the prices node is not deployed yet: the chart shows the tariff alone until it is' };
  }
  await node.book.ready;
  const known = node.book.prices();
  const note = known.length === 0 ? 'no price list kept yet: the chart fills in when the first list comes' : null;
  return { source: new StackSource(node.book, node.settings).stackFor(tariff), note };
}

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
  const stack = await chartedStack(RED, text(body.prices), tariff);
  const charted = chartData(tariff, at, access.timezone, CHART_DAYS, stack.source);
  const data = stack.note === null ? charted : { ...charted, stackNote: stack.note };
  // easy-plan's dialog: its settings as typed, planned over the chart's week with the base line's sensors
  const plan = isObject(body.plan)
    ? planPreview(stack.source, body.plan, at, data.to, { timezone: access.timezone, sensors: data.lines[0].sensors ?? undefined })
    : undefined;
  const answer = plan ? { ...data, plan } : data;
  return got.stale ? { ...answer, stale: true, error: editorError(got.error) } : answer;
}
