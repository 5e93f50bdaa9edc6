/**
 * Reads a response body, stopping (and cancelling the stream) as soon as it exceeds `max` bytes, so
 * a hostile or broken peer cannot make us buffer an unbounded body. `undefined` when too large.
 */
export async function readCappedBody(response: Response, max: number): Promise<Buffer | undefined> {
  if (!response.body) return Buffer.alloc(0);
  if (Number(response.headers.get('content-length')) > max) {
    await response.body.cancel().catch(() => undefined);
    return undefined;
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
