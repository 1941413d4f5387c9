// A vector file with its JSON header changed, as an older or a hand-edited file would have it:
// the rows are left as they are and the header padded to 4 again, as the writer pads it.
export function rewriteVectorHeader(bytes: Uint8Array, change: (header: { notes: Record<string, unknown>[] } & Record<string, unknown>) => unknown): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = view.getUint32(4, true);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + length))) as { notes: Record<string, unknown>[] } & Record<string, unknown>;
  const json = new TextEncoder().encode(JSON.stringify(change(header)));
  const padded = Math.ceil(json.length / 4) * 4;
  const out = new Uint8Array(8 + padded + bytes.length - 8 - length).fill(0x20, 8, 8 + padded);
  out.set(bytes.subarray(0, 4));
  new DataView(out.buffer).setUint32(4, padded, true);
  out.set(json, 8);
  out.set(bytes.subarray(8 + length), 8 + padded);
  return out;
}
