// The routes of a gateway's sensors: the list of one gateway, and the gateways the account
// has used (no request made for those).
import { EditorRequestError, gatewaysOfTariffs, sensorList } from './editor-data';
import { accessFor, AdminRED, deployedAccount, text } from './admin-access';

export async function sensors(RED: AdminRED, body: Record<string, unknown>) {
  const gateway = text(body.gateway);
  if (!gateway) throw new EditorRequestError('bad_request', 'no gateway id given');
  const access = accessFor(RED, body);
  if (access.client) return sensorList(gateway, await access.client.fetchSensors(gateway));
  const snapshot = await access.hub.sharedSensors(gateway);
  if (snapshot.error) throw snapshot.error;
  return sensorList(gateway, snapshot.sensors);
}

/**
 * Gateway ids this account has used: the deployed easy-sensors nodes' gateways and the
 * gateways named by sensor rules of the deployed account's tariffs (as last fetched: no
 * request is made). Without an id, every deployed easy-sensors node counts.
 */
export async function gateways(RED: AdminRED, body: Record<string, unknown>) {
  const id = text(body.id);
  const found: string[] = [];
  const add = (g: unknown) => {
    if (typeof g === 'string' && g.trim() && !found.includes(g.trim())) found.push(g.trim());
  };
  RED.nodes.eachNode?.((config) => {
    if (config.type === 'easy-sensors' && (!id || config.account === id)) add(config.gateway);
  });
  const kept = deployedAccount(RED, id)?.hub?.tariffs();
  if (kept) gatewaysOfTariffs(kept.tariffs).forEach(add);
  return { gateways: found };
}
