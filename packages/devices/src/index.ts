export {
  createDeviceLists,
  type DeviceLists,
  type StoredDeviceList,
  type WriteOptions,
} from "./device-lists.js";
export { DevicesError } from "./errors.js";
export { parseDeviceListMessage } from "./message.js";
export { deviceLists, devicesMigrations } from "./schema.js";
