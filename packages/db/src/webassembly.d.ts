// TypeScript declares WebAssembly only in the DOM library, which the Node tier leaves out
// (@types/node 20 does not declare it either). These are the members the embedded database uses.
declare namespace WebAssembly {
  // biome-ignore lint/suspicious/noEmptyInterface: an opaque compiled module, handed to PGlite as is
  interface Module {}
  function compile(bytes: Uint8Array): Promise<Module>;
}
