// A DNS server on 127.0.0.1 (UDP, a free port) that answers A queries from a script: the n-th
// query for a name gets the n-th address (the last one repeats), AAAA queries get no records. What
// a rebinding attacker runs: a public address for the check, loopback for whoever asks next.
import { createSocket, type Socket } from "node:dgram";

export interface FakeDnsServer {
  /** `127.0.0.1:PORT`, for Resolver.setServers. */
  server: string;
  /** Every A query, by name, in order. */
  queries: string[];
  close(): Promise<void>;
}

export async function fakeDnsServer(answers: Record<string, string[]>): Promise<FakeDnsServer> {
  const socket: Socket = createSocket("udp4");
  const queries: string[] = [];
  const asked = new Map<string, number>();
  socket.on("message", (query, from) => {
    const { name, type, questionEnd } = readQuestion(query);
    let addresses: string[] = [];
    if (type === 1) {
      queries.push(name);
      const n = asked.get(name) ?? 0;
      asked.set(name, n + 1);
      const script = answers[name] ?? [];
      if (script.length > 0) addresses = [script[Math.min(n, script.length - 1)]];
    }
    socket.send(answer(query, questionEnd, addresses), from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  return { server: `127.0.0.1:${socket.address().port}`, queries, close: () => new Promise((resolve) => socket.close(() => resolve())) };
}

function readQuestion(query: Buffer): { name: string; type: number; questionEnd: number } {
  const labels: string[] = [];
  let at = 12;
  while (query[at] !== 0) {
    labels.push(query.subarray(at + 1, at + 1 + query[at]).toString("ascii"));
    at += 1 + query[at];
  }
  at += 1;
  return { name: labels.join(".").toLowerCase(), type: query.readUInt16BE(at), questionEnd: at + 4 };
}

/** The query's header and question, flagged as an answer, with one A record per address (TTL 0). */
function answer(query: Buffer, questionEnd: number, addresses: string[]): Buffer {
  const header = Buffer.from(query.subarray(0, 12));
  header.writeUInt16BE(0x8180, 2); // response, recursion desired and available, no error
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(addresses.length, 6);
  header.writeUInt32BE(0, 8);
  const records = addresses.map((address) => {
    const record = Buffer.alloc(16);
    record.writeUInt16BE(0xc00c, 0); // the name, by pointer to the question
    record.writeUInt16BE(1, 2); // A
    record.writeUInt16BE(1, 4); // IN
    record.writeUInt32BE(0, 6); // TTL
    record.writeUInt16BE(4, 10);
    address.split(".").forEach((part, i) => record.writeUInt8(Number(part), 12 + i));
    return record;
  });
  return Buffer.concat([header, query.subarray(12, questionEnd), ...records]);
}
