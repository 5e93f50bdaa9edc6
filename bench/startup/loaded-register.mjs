// `node --import ./loaded-register.mjs`: records the URL of every module the app loads (ESM through
// the resolve hook, CommonJS through require) in globalThis.__loadedUrls.
import { register, Module } from 'node:module';
import { MessageChannel } from 'node:worker_threads';

const urls = new Set();
globalThis.__loadedUrls = urls;
const { port1, port2 } = new MessageChannel();
port1.on('message', (url) => urls.add(url));
port1.unref();
register('./loaded-hook.mjs', import.meta.url, { data: { port: port2 }, transferList: [port2] });
const load = Module._load;
Module._load = function (request, parent, isMain) {
  const exported = load.apply(this, arguments);
  try {
    urls.add(Module._resolveFilename(request, parent, isMain));
  } catch {
    // a built-in
  }
  return exported;
};
