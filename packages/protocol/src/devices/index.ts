export { accountOf } from "./account.js";
export {
  checkDeviceListStep,
  DEVICE_LIST_DOMAIN,
  type DeviceEntry,
  type DeviceList,
  type DeviceListFields,
  deviceListHash,
  deviceListMessage,
  firstDeviceList,
  signDeviceList,
} from "./device-list.js";
export { deviceListFromJson, deviceListToJson } from "./device-list-json.js";
export { parseDeviceListMessage } from "./device-list-parse.js";
export {
  DeviceListError,
  type DeviceListErrorCode,
  DeviceMessageError,
  type DeviceMessageErrorCode,
} from "./errors.js";
export {
  DEVICE_FRAME_DOMAIN,
  DEVICE_FRAME_KIND,
  type DeviceFrame,
  decodeDeviceFrame,
  encodeDeviceFrame,
  isDeviceFrame,
} from "./frames.js";
export {
  formatLinkCode,
  LINK_SECRET_SIZE,
  type LinkCode,
  linkApprovalMac,
  linkKey,
  linkRequestMac,
  parseLinkCode,
} from "./link.js";
