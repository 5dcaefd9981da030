// The package's `main`: the engine and the client, free of Node-RED, usable from
// function nodes (see README "Library API").
export {};
export { decodeSensorId } from './sensor-ids';
export type { DecodedSensorId, ModbusQuantity } from './sensor-ids';
// The engine (time, tariffs, price, cost)
export { toEpochMs, requireEpochMs, assertTimeZone, machineTimeZone } from './time';
export { parseTariffs, sensorsUsedBy } from './tariff';
export type { Rule, Tariff, Problem, SensorRef } from './tariff';
export { priceAt, nextPriceChange, schedule } from './price';
export type { PriceResult, PriceOptions, ScheduleEntry, SensorValues } from './price';
