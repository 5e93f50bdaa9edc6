// A module-resolution hook for the startup bench: reports every resolved URL to the main thread,
// so the bench can say which heavy packages an app loaded. Registered by loaded-register.mjs.
let port;
export function initialize(data) {
  port = data.port;
}
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  port.postMessage(result.url);
  return result;
}
