export {
  startTestServer,
  TEST_KT_SIGNING_KEY,
  TEST_KT_VRF_KEY,
  type TestServer,
  type TestServerOptions,
} from "./server.js";
