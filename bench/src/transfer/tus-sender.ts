import { createReadStream } from "node:fs";
import { Upload } from "tus-js-client";
import { runSender } from "./run-side.js";

/**
 * tus's sender process: tus-js-client's Node build uploading from a file stream (it reads each
 * chunk from the file by its path), with its defaults except chunkSize, set to svc's chunk size
 * so that both send the same number of requests.
 */
await runSender(async ({ url = "", file, bytes, chunkBytes }) => async () => {
  await new Promise<void>((resolve, reject) => {
    // A ReadStream with a path is what the Node build reads in slices; its types name only Buffer.
    const source = createReadStream(file) as unknown as Buffer;
    const upload = new Upload(source, {
      endpoint: url,
      uploadSize: bytes,
      chunkSize: chunkBytes,
      metadata: { filename: "random.bin" },
      onSuccess: () => resolve(),
      onError: reject,
    });
    upload.start();
  });
});
