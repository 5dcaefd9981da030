// The package's `main`: the engine and the client, free of Node-RED, usable from
// function nodes (see README "Library API").
export {};
export { decodeSensorId } from './sensor-ids';
export type { DecodedSensorId, ModbusQuantity } from './sensor-ids';
